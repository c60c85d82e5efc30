// The documents area's composition module: its services with their production dependencies.
import { accountsApi } from '#functions/app/accounts/wiring.js';
import { documentAdapters } from '#functions/app/document-adapters.js';
import { type Platform, perPlatform } from '#functions/app/platform.js';
import { type LexicalSnapshots, createGraphIndexCache, snapshotAfterChunks } from '#functions/documents/graph-index-cache.js';
import { type GraphService, createGraphService } from '#functions/documents/graph-service.js';
import { type GraphStore, createGraphStore } from '#functions/documents/graph-store.js';
import { type DocumentsApi, createDocumentsApi } from '#functions/documents/api.js';
import { createIngest } from '#functions/documents/ingest.js';
import { createLargeGraphIndex } from '#functions/documents/large-graph-index.js';
import type { AccountDirectory, BlobStore, DocumentJob, Embedder, GraphVectorStore } from '#functions/documents/ports.js';
import { createSearch } from '#functions/documents/search.js';
import { type DocumentService, type DocumentServiceDeps, createDocumentService } from '#functions/documents/service.js';
import { createSnapshotKeeper } from '#functions/documents/snapshot-keeper.js';
import { type DocumentStore, createDocumentStore } from '#functions/documents/store.js';
import { createTermStore } from '#functions/documents/term-store.js';

const accountDirectory = (platform: Platform): AccountDirectory => ({ exists: accountsApi(platform).accountExists });

/** Where a graph's BM25 snapshot is kept beside the originals: one object per graph, replaced as the graph grows. */
export const lexicalSnapshotKey = (graphId: string) => `lexical-indexes/${encodeURIComponent(graphId)}.json`;

const lexicalSnapshots = (blobs: BlobStore): LexicalSnapshots => ({
  read: (graphId) => blobs.get(lexicalSnapshotKey(graphId)),
  write: (graphId, bytes) => blobs.put(lexicalSnapshotKey(graphId), bytes, 'application/json'),
});

const documentIdsOf = (store: DocumentStore) => async (graphId: string) => (await store.listEntries(graphId)).map((entry) => entry.documentId);

/** Warm graph indexes over the store, with their BM25 snapshots in the blob store (one cache per process). */
export function graphIndexes(
  platform: Platform,
  deps: { store: DocumentStore; graphStore: GraphStore; blobs: BlobStore; embedder: Pick<Embedder, 'modelId' | 'dims'> },
) {
  const { store, graphStore, blobs, embedder } = deps;
  const version = async (graphId: string) => (await graphStore.state(graphId)).version;
  const source = { version, vectors: store.getVectors, chunks: store.listChunks, documentIds: documentIdsOf(store) };
  const { maxCachedVectors: maxVectors, searchIndexWaitMs: loadWaitMs } = platform.settings.documents;
  return createGraphIndexCache({ source, embedder, maxVectors, loadWaitMs, snapshots: lexicalSnapshots(blobs) });
}

/** The processing job's upkeep of BM25 snapshots, for graphs of at least `fromChunks` chunks. */
function snapshotKeeper(deps: { store: DocumentStore; graphStore: GraphStore; blobs: BlobStore; fromChunks: number; upToChunks?: number }) {
  const { store, graphStore, blobs, fromChunks, upToChunks } = deps;
  const source = {
    chunkCount: async (graphId: string) => (await graphStore.state(graphId)).chunkCount,
    documentIds: documentIdsOf(store),
    completed: async (documentIds: string[]) =>
      (await store.getDocuments(documentIds)).filter((document) => document.status === 'completed').map((document) => document.documentId),
    chunks: store.listChunks,
  };
  return createSnapshotKeeper({ source, snapshots: lexicalSnapshots(blobs), fromChunks, upToChunks });
}

/**
 * `large.fromChunks`: chunks past which a graph is searched outside the process; `large.snapshotFromChunks`: chunks from
 * which the processing job keeps a graph's BM25 snapshot (both lowered by tests).
 */
export function productionDeps(
  platform: Platform,
  large: { vectorStore?: GraphVectorStore; fromChunks?: number; snapshotFromChunks?: number } = {},
): DocumentServiceDeps {
  const { clock } = platform;
  const store = createDocumentStore();
  const graphStore = createGraphStore();
  const graphs = createGraphService({ graphs: graphStore, accounts: accountDirectory(platform), clock });
  const { blobStore: blobs, embedder, graphVectorStore } = documentAdapters(platform);
  const vectorStore = large.vectorStore ?? graphVectorStore;
  const largeGraphs = vectorStore && createLargeGraphIndex({ vectors: vectorStore, terms: createTermStore() });
  const fromChunks = large.fromChunks ?? platform.settings.documents.largeGraphChunks;
  const snapshots = snapshotKeeper({
    store,
    graphStore,
    blobs,
    fromChunks: large.snapshotFromChunks ?? snapshotAfterChunks,
    upToChunks: largeGraphs && fromChunks,
  });
  const ingest = createIngest({ store, blobs, embedder, clock, largeGraphs, snapshots });
  const indexes = graphIndexes(platform, { store, graphStore, blobs, embedder });
  const search = createSearch({ store, graphs, embedder, indexes, state: graphStore.state, largeGraphs: largeGraphs && { index: largeGraphs, fromChunks } });
  return { store, graphs, blobs, ingest, jobs: platform.backgroundRuns((job: DocumentJob) => ingest.job(job.documentId)), search, clock, largeGraphs };
}

export const documentService = perPlatform((platform): DocumentService => createDocumentService(productionDeps(platform)));

/** The documents facade other areas' compositions take. */
export const documentsApi = perPlatform((platform): DocumentsApi => createDocumentsApi(documentService(platform)));

export const graphsService = perPlatform(
  (platform): GraphService => createGraphService({ graphs: createGraphStore(), accounts: accountDirectory(platform), clock: platform.clock }),
);

/** What a processing job sent to the upload functions runs (withBackgroundRuns tells it from an HTTP event). */
export const processDocument = (job: DocumentJob) => documentService().process(job.documentId);
