// The asynchronous processing path of AWS, minus Lambda itself: the upload handler receives the job event that
// adapters/aws/lambda-self-invoke.ts sends and processes the document.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Context } from 'aws-lambda';
import { beforeAll, describe, expect, it, vi } from 'vitest';
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
    const { documentService } = await import('../../functions/app/documents/wiring.js');
    const { createDocumentStore } = await import('../../functions/documents/store.js');
    const { handler } = await import('../../functions/app/documents/handlers/upload-document.js');
    const text = 'Invoices are due within 14 days. Late payments incur a fee of 1.5 percent per month.';
    const ticket = await documentService().createUploadUrl(caller, { filename: 'terms.txt', mimeType: 'text/plain', size: text.length, productTags: [] });
    await fetch(ticket.uploadUrl, { method: 'PUT', headers: ticket.headers, body: text });
    await createDocumentStore().setStatus(ticket.documentId, 'uploading', { status: 'processing', sizeBytes: text.length });
    // Act
    await handler({ backgroundRun: { documentId: ticket.documentId } }, {} as Context);
    const status = await documentService().status(caller, ticket.documentId);
    // Assess
    expect(status).toMatchObject({ status: 'completed', chunkCount: 1, failureReason: null });
  });

  it('leaves a finished document alone when its job comes again', async () => {
    // Prepare
    const { documentService } = await import('../../functions/app/documents/wiring.js');
    const { handler } = await import('../../functions/app/documents/handlers/upload-document.js');
    const { toBase64 } = await import('../support/document-files.js');
    const uploaded = await documentService().upload(caller, { file: toBase64('A short note.'), filename: 'note.txt', mimeType: 'text/plain', productTags: [] });
    const before = await documentService().status(caller, uploaded.documentId);
    // Act
    await handler({ backgroundRun: { documentId: uploaded.documentId } }, {} as Context);
    const after = await documentService().status(caller, uploaded.documentId);
    // Assess
    expect(after).toEqual(before);
  });
});

describe('documents: BM25 snapshots kept by the processing job', () => {
  const owner: Caller = { userId: `usr_snap${Date.now()}`, keyId: 'key_snap', scopes: ['*'] };
  const texts = {
    refunds: 'Refunds are paid to the original card within ten working days of the returned parcel arriving at the warehouse.',
    ladders: 'Ladders must be inspected before each use; a cracked rung or a bent stile takes the ladder out of service at once.',
  };

  async function setup() {
    const { productionDeps, graphIndexes, lexicalSnapshotKey } = await import('../../functions/app/documents/wiring.js');
    const { LexicalIndex } = await import('../../functions/documents/lexical-index.js');
    const { createDocumentService } = await import('../../functions/documents/service.js');
    const { createGraphStore } = await import('../../functions/documents/graph-store.js');
    const { documentAdapters } = await import('../../functions/app/document-adapters.js');
    const { platform } = await import('../../functions/app/platform.js');
    const { embedder } = documentAdapters(platform());
    const { personalGraphId } = await import('../../functions/documents/graph-service.js');
    const deps = productionDeps(platform(), { snapshotFromChunks: 1 });
    const service = createDocumentService(deps);
    /** A search function's cache after a cold start: nothing warm, only what the blob store holds. */
    const coldIndexes = () => graphIndexes(platform(), { store: deps.store, graphStore: createGraphStore(), blobs: deps.blobs, embedder });
    /** An upload too large to process in its request, processed by its job. */
    async function processedByJob(filename: string, text: string) {
      const ticket = await service.createUploadUrl(owner, { filename, mimeType: 'text/plain', size: text.length, productTags: [] });
      await fetch(ticket.uploadUrl, { method: 'PUT', headers: ticket.headers, body: text });
      await deps.store.setStatus(ticket.documentId, 'uploading', { status: 'processing', sizeBytes: text.length });
      await service.process(ticket.documentId);
      return ticket.documentId;
    }
    /** Whether the graph's snapshot in the blob store holds the document. */
    async function snapshotHolds(graphId: string, documentId: string) {
      const bytes = await deps.blobs.get(lexicalSnapshotKey(graphId));
      return Boolean(bytes && (await LexicalIndex.fromSnapshot(bytes))?.documentIds().includes(documentId));
    }
    return { deps, service, coldIndexes, processedByJob, snapshotHolds, embedder, graphId: personalGraphId(owner.userId) };
  }

  it('leaves a snapshot holding each processed document, so a cold load indexes no chunk from text and ranks as an index built from the chunks', async () => {
    // Prepare
    const { deps, coldIndexes, processedByJob, embedder, graphId } = await setup();
    const { LexicalIndex } = await import('../../functions/documents/lexical-index.js');
    const { rankHybrid } = await import('../../functions/documents/hybrid-rank.js');
    const { calibrationOf } = await import('../../functions/documents/calibration.js');
    const refunds = await processedByJob('refunds.txt', texts.refunds);
    const ladders = await processedByJob('ladders.txt', texts.ladders);
    const fromText = new LexicalIndex();
    for (const documentId of [refunds, ladders]) fromText.put(documentId, await deps.store.listChunks(documentId));
    const question = 'When is my refund paid back?';
    const [query] = await embedder.embed([question]);
    const input = { query: query!, question, calibration: calibrationOf(embedder.modelId)!, limit: 5, threshold: 0 };
    // Act
    const indexes = coldIndexes();
    const index = await indexes.indexFor(graphId);
    // Assess
    expect(indexes.stats().chunksFromText).toBe(0);
    expect(index.lexical.documentIds().sort()).toEqual([refunds, ladders].sort());
    expect(rankHybrid(index, input)).toEqual(rankHybrid({ vectors: index.vectors, lexical: fromText }, input));
  });

  it('never shows a document removed from the graph after its snapshot was written', async () => {
    // Prepare
    const { service, coldIndexes, processedByJob, graphId } = await setup();
    const kept = await processedByJob('kept.txt', texts.refunds);
    const removed = await processedByJob('removed.txt', texts.ladders);
    const question = { query: 'inspect a ladder with a cracked rung', limit: 10, threshold: 0 };
    const before = await service.search(owner, question);
    await service.remove(owner, removed);
    // Act
    const indexes = coldIndexes();
    const index = await indexes.indexFor(graphId);
    const found = await service.search(owner, question);
    // Assess
    expect(before.results.map((result) => result.documentId)).toContain(removed);
    expect(index.lexical.documentIds()).not.toContain(removed);
    expect(index.lexical.documentIds()).toContain(kept);
    expect(found.results.map((result) => result.documentId)).not.toContain(removed);
  });

  it('hands a document processed within its upload request to a job that adds it to the snapshot', async () => {
    // Prepare
    const { service, graphId, snapshotHolds } = await setup();
    const { toBase64 } = await import('../support/document-files.js');
    // Act
    const uploaded = await service.upload(owner, { file: toBase64(texts.refunds), filename: 'inline.txt', mimeType: 'text/plain', productTags: [] });
    // Assess
    expect(uploaded.status).toBe('completed');
    await vi.waitFor(async () => expect(await snapshotHolds(graphId, uploaded.documentId)).toBe(true), { timeout: 30_000, interval: 50 });
  });

  it("hands a document shared into a graph to a job that adds it to that graph's snapshot", async () => {
    // Prepare
    const { deps, service, processedByJob, snapshotHolds } = await setup();
    const shared = await processedByJob('shared.txt', texts.ladders);
    const group = await deps.graphs.createGroup(owner, 'Safety');
    // Act
    await service.share(owner, { documentId: shared, targetGraphId: group.graphId });
    // Assess
    await vi.waitFor(async () => expect(await snapshotHolds(group.graphId, shared)).toBe(true), { timeout: 30_000, interval: 50 });
  });
});
