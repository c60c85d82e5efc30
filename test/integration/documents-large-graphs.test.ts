// Graphs too large for one process: search routed to S3 Vectors (a local server speaking its API) and the DynamoDB
// term index, against DynamoDB Local. The size is lowered to a few chunks so small documents make a "large" graph.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Caller } from '../../functions/platform/caller.js';
import type { DocumentService } from '../../functions/documents/service.js';
import { type S3VectorsServer, startS3VectorsServer } from '../support/s3-vectors-server.js';
import { toBase64 } from '../support/document-files.js';

const run = Date.now();
const owner: Caller = { userId: `usr_large${run}`, keyId: 'key_large', scopes: ['*'] };
const graphId = `user:${owner.userId}`;
const otherGraph = `group:grp_large${run}`;
const indexArn = 'arn:aws:s3vectors:eu-west-1:123456789012:bucket/documents/index/chunks';

const documents = {
  'refunds.txt':
    'Refund policy.\n\nCustomers may return unopened items within 30 days of delivery for a full refund. Opened items are refunded at 80 percent of the price.\n\nRefunds reach the original card within five business days.',
  'security.txt':
    'Badge access.\n\nVisitors sign in at reception and wear a visitor badge at all times. Lost badges are reported to facilities the same day.\n\nThe server room opens only with a badge and a PIN.',
  'travel.txt':
    'Travel expenses.\n\nEconomy class is booked for flights under six hours. Hotel nights are reimbursed up to 180 euros in capital cities.\n\nReceipts are uploaded within ten days of return.',
};

let server: S3VectorsServer;
let large: DocumentService;
let warm: DocumentService;
const ids: Record<string, string> = {};

beforeAll(async () => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
  process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'documents-large-'));
  server = await startS3VectorsServer();
  const { createDocumentService } = await import('../../functions/documents/service.js');
  const { productionDeps } = await import('../../functions/app/documents/wiring.js');
  const { createS3VectorsStore } = await import('../../functions/adapters/aws/s3-vectors-store.js');
  const { platform } = await import('../../functions/app/platform.js');
  const vectorStore = createS3VectorsStore(
    { endpoint: server.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } },
    { indexArn },
  );
  large = createDocumentService(productionDeps(platform(), { vectorStore, fromChunks: 2 }));
  warm = createDocumentService(productionDeps(platform()));
  for (const [filename, text] of Object.entries(documents)) {
    ids[filename] = (await large.upload(owner, { file: toBase64(text), filename, mimeType: 'text/plain', productTags: [] })).documentId;
  }
});
afterAll(() => server.stop());

const graphState = async (id: string) => {
  const { createGraphStore } = await import('../../functions/documents/graph-store.js');
  return createGraphStore().state(id);
};
const vectorKeysOf = (id: string) => [...server.stored.keys()].filter((key) => key.startsWith(`${id}|`));

describe('documents: graphs too large for one process', () => {
  it("keeps each graph's chunk count and searches a graph past the size in S3 Vectors and the term index, finding what the warm index finds", async () => {
    // Prepare
    const question = { query: 'how long until my money is back on my card', graphId, limit: 5, threshold: 0 };
    server.calls.length = 0;
    // Act
    const state = await graphState(graphId);
    const routed = await large.search(owner, question);
    const scanned = await warm.search(owner, question);
    // Assess
    expect(state.chunkCount).toBeGreaterThan(2);
    expect(server.calls.filter((call) => call.operation === 'QueryVectors')).toHaveLength(1);
    expect(routed.results[0]).toMatchObject({ documentId: ids['refunds.txt'], documentName: 'refunds.txt' });
    expect(routed.results[0]!.chunkId).toBe(scanned.results[0]!.chunkId);
  });

  it('scores chunks in the DynamoDB term index exactly as the warm BM25 index does', async () => {
    // Prepare
    const { LexicalIndex, questionTermsOf, scorePostings, termsOf } = await import('../../functions/documents/lexical-index.js');
    const { createTermStore } = await import('../../functions/documents/term-store.js');
    const chunks = Object.values(documents)
      .flatMap((text) => text.split('\n\n'))
      .map((content, position) => ({ position, content, heading: position % 3 ? 'Policy' : null }));
    const lexical = new LexicalIndex();
    lexical.put('doc_terms', chunks);
    const terms = createTermStore();
    const termGraph = `group:grp_terms${run}`;
    await terms.put(termGraph, 'doc_terms', chunks);
    const question = 'are refunds of opened items made to the card, and what about badges of visitors?';
    const totalTerms = chunks.reduce((sum, chunk) => sum + new Set(termsOf(`${chunk.heading ?? ''}\n${chunk.content}`)).size, 0);
    // Act
    const postings = await terms.postings(termGraph, questionTermsOf(question), chunks.length);
    const fromDynamo = scorePostings(question, postings, { chunks: chunks.length, terms: totalTerms });
    const inMemory = lexical.search(question);
    // Assess
    const byPosition = (hits: typeof inMemory) => Object.fromEntries(hits.map((hit) => [hit.position, [hit.bm25.toFixed(9), hit.coverage.toFixed(9)]]));
    expect(fromDynamo.length).toBeGreaterThan(2);
    expect(byPosition(fromDynamo)).toEqual(byPosition(inMemory));
  });

  it('writes a shared document into its new graph, and takes it out of a graph it leaves and of all of them when deleted', async () => {
    // Prepare: sharing into a group that does not exist yet creates it
    const travel = ids['travel.txt']!;
    const { chunkCount } = await large.status(owner, travel);
    // Act
    await large.share(owner, { documentId: travel, targetGraphId: otherGraph });
    const afterShare = { keys: vectorKeysOf(otherGraph).length, state: await graphState(otherGraph) };
    await large.unshare(owner, travel, otherGraph);
    const afterUnshare = { keys: vectorKeysOf(otherGraph).length, state: await graphState(otherGraph) };
    const before = await graphState(graphId);
    await large.remove(owner, travel);
    const afterDelete = { keys: vectorKeysOf(graphId).filter((key) => key.includes(travel)).length, state: await graphState(graphId) };
    const search = await large.search(owner, { query: 'hotel nights in capital cities', graphId, limit: 5, threshold: 0 });
    // Assess
    expect(afterShare).toMatchObject({ keys: chunkCount, state: { chunkCount } });
    expect(afterUnshare).toMatchObject({ keys: 0, state: { chunkCount: 0, termCount: 0 } });
    expect(afterDelete).toMatchObject({ keys: 0, state: { chunkCount: before.chunkCount - chunkCount } });
    expect(search.results.map((result) => result.documentId)).not.toContain(travel);
  });
});
