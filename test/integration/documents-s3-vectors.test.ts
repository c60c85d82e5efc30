// The S3 Vectors adapter at its HTTP boundary, against a local server speaking the same API.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3VectorsStore } from '../../functions/adapters/aws/s3-vectors-store.js';
import { normalise } from '../../functions/documents/ports.js';
import { type S3VectorsServer, startS3VectorsServer } from '../support/s3-vectors-server.js';

let server: S3VectorsServer;
const indexArn = 'arn:aws:s3vectors:eu-west-1:123456789012:bucket/documents-vectors/index/chunks';
const unit = (...values: number[]) => normalise(Float32Array.from(values));
const store = () =>
  createS3VectorsStore({ endpoint: server.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } }, { indexArn });

beforeAll(async () => {
  server = await startS3VectorsServer();
});
afterAll(() => server.stop());

describe('aws adapter: S3 Vectors graph store', () => {
  it('answers the nearest chunks of one graph only, best first, as cosine similarities', async () => {
    // Prepare
    const vectors = store();
    await vectors.put('group:grp_a', 'doc_a', [unit(1, 0, 0), unit(0, 1, 0)]);
    await vectors.put('group:grp_b', 'doc_b', [unit(1, 0.01, 0)]);
    // Act
    const hits = await vectors.query('group:grp_a', unit(1, 0.2, 0), 5);
    // Assess
    expect(hits.map(({ documentId, position }) => ({ documentId, position }))).toEqual([
      { documentId: 'doc_a', position: 0 },
      { documentId: 'doc_a', position: 1 },
    ]);
    expect(hits[0]!.similarity).toBeCloseTo(unit(1, 0.2, 0)[0]!, 5);
    expect(server.calls.every((call) => call.signed && call.indexArn === indexArn)).toBe(true);
  });

  it('writes and deletes a large document in calls of at most 500, and queries at most 100 neighbours', async () => {
    // Prepare
    const vectors = store();
    const many = Array.from({ length: 1200 }, (_, at) => unit(Math.cos(at), Math.sin(at), 1));
    server.calls.length = 0;
    // Act
    await vectors.put('group:grp_big', 'doc_big', many);
    const found = await vectors.query('group:grp_big', unit(1, 0, 1), 1000);
    await vectors.remove('group:grp_big', 'doc_big', many.length);
    const after = await vectors.query('group:grp_big', unit(1, 0, 1), 10);
    // Assess
    expect(server.calls.filter((call) => call.operation === 'PutVectors').map((call) => call.count)).toEqual([500, 500, 200]);
    expect(server.calls.filter((call) => call.operation === 'DeleteVectors').map((call) => call.count)).toEqual([500, 500, 200]);
    expect(found).toHaveLength(100);
    expect(after).toEqual([]);
  });

  it('answers the cosine of named chunks of the graph in calls of at most 100 keys, leaving out chunks it does not hold', async () => {
    // Prepare
    const vectors = store();
    await vectors.put(
      'group:grp_near',
      'doc_near',
      Array.from({ length: 150 }, (_, at) => unit(1, at / 100, 0)),
    );
    server.calls.length = 0;
    const named = [...Array.from({ length: 150 }, (_, position) => ({ documentId: 'doc_near', position })), { documentId: 'doc_elsewhere', position: 0 }];
    // Act
    const found = await vectors.similarities('group:grp_near', unit(1, 0, 0), named);
    // Assess
    expect(server.calls.map((call) => [call.operation, call.count])).toEqual([
      ['GetVectors', 100],
      ['GetVectors', 51],
    ]);
    expect(found).toHaveLength(150);
    expect(found.find((hit) => hit.position === 100)!.similarity).toBeCloseTo(unit(1, 1, 0)[0]!, 5);
  });

  it('refuses to run without a bucket and index configured', async () => {
    const unconfigured = createS3VectorsStore(
      { endpoint: server.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } },
      { indexArn: undefined },
    );
    await expect(unconfigured.query('group:grp_a', unit(1, 0, 0), 5)).rejects.toThrow(/DOCUMENT_VECTOR_INDEX_ARN/);
  });
});
