// The documents area's AWS adapters: S3 and Lambda against moto_server, Bedrock against a local stand-in of its
// InvokeModel endpoint (moto has no Bedrock runtime).
import { createServer } from 'node:http2';
import type { AddressInfo } from 'node:net';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { CreateFunctionCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBedrockEmbedder } from '../../functions/adapters/aws/bedrock-embedder.js';
import { createLambdaBackgroundRuns, maxEventPayloadBytes } from '../../functions/adapters/aws/lambda-self-invoke.js';
import type { DocumentJob } from '../../functions/documents/ports.js';
import { isBackgroundRun } from '../../functions/platform/ports.js';
import { createS3BlobStore } from '../../functions/adapters/aws/s3-blob-store.js';
import { type Moto, startMoto } from '../support/moto.js';

let moto: Moto;

beforeAll(async () => {
  moto = await startMoto();
});
afterAll(() => moto.stop());

describe('aws adapter: S3 blob store', () => {
  it('stores, reads, sizes and deletes originals', async () => {
    // Prepare
    const bucket = `documents-${Date.now()}`;
    await new S3Client({ ...moto.clientConfig, forcePathStyle: true }).send(new CreateBucketCommand({ Bucket: bucket }));
    const blobs = createS3BlobStore({ ...moto.clientConfig, forcePathStyle: true }, bucket);
    // Act
    await blobs.put('originals/doc_a', new TextEncoder().encode('hello'), 'text/plain');
    const read = await blobs.get('originals/doc_a');
    const size = await blobs.sizeOf('originals/doc_a');
    await blobs.delete('originals/doc_a');
    // Assess
    expect(new TextDecoder().decode(read)).toBe('hello');
    expect(size).toBe(5);
    expect(await blobs.get('originals/doc_a')).toBeUndefined();
    expect(await blobs.sizeOf('originals/doc_a')).toBeUndefined();
  });

  it('hands out a presigned PUT that stores the file', async () => {
    // Prepare
    const bucket = `uploads-${Date.now()}`;
    await new S3Client({ ...moto.clientConfig, forcePathStyle: true }).send(new CreateBucketCommand({ Bucket: bucket }));
    const blobs = createS3BlobStore({ ...moto.clientConfig, forcePathStyle: true }, bucket);
    const body = new TextEncoder().encode('a large file, in spirit');
    // Act
    const target = await blobs.uploadTarget('originals/doc_b', 'text/plain', body.length, 900);
    const put = await fetch(target.url, { method: target.method, headers: target.headers, body });
    // Assess
    expect(target.url).toContain('X-Amz-Signature=');
    expect(target.url).toContain('X-Amz-Expires=900');
    expect(put.status).toBe(200);
    expect(await blobs.sizeOf('originals/doc_b')).toBe(body.length);
  });
});

describe('aws adapter: asynchronous self-invocation', () => {
  it('invokes the named function with a document job or a background run, asynchronously; a run too large for it runs here', async () => {
    // Prepare
    const roleName = `documents-${Date.now()}`;
    // No IAM client among the project's packages: moto's IAM query API takes the same call as a form post.
    await fetch(moto.endpoint, {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-www-form-urlencoded',
        Authorization: 'AWS4-HMAC-SHA256 Credential=testing/20260101/us-east-1/iam/aws4_request',
      },
      body: new URLSearchParams({ Action: 'CreateRole', Version: '2010-05-08', RoleName: roleName, AssumeRolePolicyDocument: '{}' }),
    });
    const lambda = new LambdaClient(moto.clientConfig);
    const functionName = `upload-document-${Date.now()}`;
    const zip = zipSync({ 'index.mjs': new TextEncoder().encode('export const handler = async () => ({});') });
    const role = `arn:aws:iam::123456789012:role/${roleName}`;
    await lambda.send(
      new CreateFunctionCommand({ FunctionName: functionName, Runtime: 'nodejs20.x', Role: role, Handler: 'index.handler', Code: { ZipFile: zip } }),
    );
    const documentJobs = (name: string) => createLambdaBackgroundRuns(async (_job: DocumentJob) => undefined, moto.clientConfig, name);
    const ranHere: unknown[] = [];
    const runs = createLambdaBackgroundRuns(async (job: { data: string }) => (ranHere.push(job), 'ended here'), moto.clientConfig, functionName);
    // Act
    const [enqueued, outsideLambda] = await Promise.allSettled([
      documentJobs(functionName).start({ documentId: 'doc_abc' }),
      documentJobs('').start({ documentId: 'doc_abc' }),
    ]);
    const handedOver = await runs.start({ data: 'small' });
    const tooLarge = await runs.start({ data: 'x'.repeat(maxEventPayloadBytes) });
    // Assess
    expect(handedOver).toEqual({ detached: true });
    expect(tooLarge.detached).toBe(false);
    expect(await tooLarge.ended).toBe('ended here');
    expect(ranHere).toHaveLength(1);
    expect(isBackgroundRun({ backgroundRun: { data: 'small' } })).toBe(true);
    expect(isBackgroundRun({ version: '2.0', routeKey: 'POST /x' })).toBe(false);
    expect(enqueued.status).toBe('fulfilled');
    expect(outsideLambda).toMatchObject({ status: 'rejected', reason: { message: expect.stringContaining('AWS_LAMBDA_FUNCTION_NAME') } });
    expect(enqueued).toMatchObject({ value: { detached: true } });
    expect(isBackgroundRun({ backgroundRun: { documentId: 'doc_abc' } })).toBe(true);
  });
});

describe('aws adapter: Bedrock Titan embeddings', () => {
  it('asks Titan v2 for 512 normalised dimensions, one text per call, and answers unit vectors in order', async () => {
    // Prepare: a stand-in for bedrock-runtime's InvokeModel, over HTTP/2 as the SDK speaks it
    const seen: Array<{ path: string; body: { inputText: string; dimensions: number; normalize: boolean } }> = [];
    const server = createServer((request, response) => {
      let raw = '';
      request.on('data', (chunk: Buffer) => (raw += chunk.toString()));
      request.on('end', () => {
        const body = JSON.parse(raw);
        seen.push({ path: decodeURIComponent(request.url ?? ''), body });
        const embedding = Array.from({ length: 512 }, (_, index) => (index === body.inputText.length ? 2 : 0));
        response.writeHead(200, { 'Content-Type': 'application/json' });
        response.end(JSON.stringify({ embedding, inputTextTokenCount: 3 }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const embedder = createBedrockEmbedder({ ...moto.clientConfig, endpoint }, 'amazon.titan-embed-text-v2:0');
    // Act
    const vectors = await embedder.embed(['a', 'bb', 'ccc']);
    server.close();
    // Assess
    expect(seen.map((call) => call.path)).toEqual(Array(3).fill('/model/amazon.titan-embed-text-v2:0/invoke'));
    expect(seen.map((call) => call.body).sort((a, b) => a.inputText.length - b.inputText.length)).toEqual([
      { inputText: 'a', dimensions: 512, normalize: true },
      { inputText: 'bb', dimensions: 512, normalize: true },
      { inputText: 'ccc', dimensions: 512, normalize: true },
    ]);
    expect(vectors.map((vector) => vector.indexOf(1))).toEqual([1, 2, 3]);
  });
});
