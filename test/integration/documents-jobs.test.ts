// The asynchronous processing path of AWS, minus Lambda itself: the upload handler receives the job event that
// adapters/aws/lambda-self-invoke.ts sends and processes the document.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { inject } from 'vitest';
import type { Caller } from '../../functions/platform/http.js';

const caller: Caller = { userId: `usr_jobs${Date.now()}`, keyId: 'key_jobs', scopes: ['*'] };

beforeAll(() => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
  process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'documents-jobs-'));
});

describe('documents: processing job event', () => {
  it('processes the document named by a job event sent to the upload handler', async () => {
    // Prepare
    const { documentService } = await import('../../functions/documents/wiring.js');
    const { createDocumentStore } = await import('../../functions/documents/store.js');
    const { handler } = await import('../../functions/documents/handlers/upload-document.js');
    const text = 'Invoices are due within 14 days. Late payments incur a fee of 1.5 percent per month.';
    const ticket = await documentService().createUploadUrl(caller, { filename: 'terms.txt', mimeType: 'text/plain', size: text.length, productTags: [] });
    await fetch(ticket.uploadUrl, { method: 'PUT', headers: ticket.headers, body: text });
    await createDocumentStore().setStatus(ticket.documentId, 'uploading', { status: 'processing', sizeBytes: text.length });
    // Act
    await handler({ documentJob: { documentId: ticket.documentId } }, {} as Context);
    const status = await documentService().status(caller, ticket.documentId);
    // Assess
    expect(status).toMatchObject({ status: 'completed', chunkCount: 1, failureReason: null });
  });

  it('leaves a finished document alone when its job comes again', async () => {
    // Prepare
    const { documentService } = await import('../../functions/documents/wiring.js');
    const { handler } = await import('../../functions/documents/handlers/upload-document.js');
    const { toBase64 } = await import('../support/document-files.js');
    const uploaded = await documentService().upload(caller, { file: toBase64('A short note.'), filename: 'note.txt', mimeType: 'text/plain', productTags: [] });
    const before = await documentService().status(caller, uploaded.documentId);
    // Act
    await handler({ documentJob: { documentId: uploaded.documentId } }, {} as Context);
    const after = await documentService().status(caller, uploaded.documentId);
    // Assess
    expect(after).toEqual(before);
  });
});
