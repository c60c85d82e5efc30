// Warm per-graph indexes (vectors and BM25 over the chunks), one set per process (a Lambda container, or the local
// server). Each search reads the graph's content version (one strongly consistent GetItem); every write to a graph's
// contents bumps that version in the same transaction, so a changed version means "reload", and the reload only
// fetches documents that are new. Building the BM25 index of a large graph from its chunks is slow (about 40 s for
// 100,000 chunks), so the index is also kept as a snapshot per graph (in the blob store), read on a cold load and then
// brought up to date like a warm index: documents that left are taken out, new ones read from their chunks.
import pMap from 'p-map';
import { TimeoutError } from '#platform/errors.js';
import { logger } from '#platform/logger.js';
import type { GraphIndex } from './hybrid-rank.js';
import { LexicalIndex } from './lexical-index.js';
import type { Embedder } from './ports.js';
import type { DocumentStore } from './store.js';
import { VectorIndex } from './vector-index.js';

export interface IndexSource {
  version(graphId: string): Promise<number>;
  documentIds(graphId: string): Promise<string[]>;
  vectors: DocumentStore['getVectors'];
  chunks: DocumentStore['listChunks'];
}

/** Snapshots of graphs' BM25 indexes (LexicalIndex.snapshot), by graph. */
export interface LexicalSnapshots {
  read(graphId: string): Promise<Uint8Array | undefined>;
  write(graphId: string, bytes: Uint8Array): Promise<void>;
}

interface Cached {
  version: number;
  index: GraphIndex;
  usedAt: number;
}

/** Documents whose vectors load at once during a reload. */
const loadConcurrency = 16;
/** A load that had to index at least this many chunks from their text leaves a new snapshot of the graph's index. */
export const snapshotAfterChunks = 10_000;

/** The graph's last snapshot, or an empty index; a snapshot that cannot be read is rebuilt, never fatal. */
export async function readLexicalSnapshot(snapshots: LexicalSnapshots | undefined, graphId: string): Promise<LexicalIndex> {
  try {
    const bytes = await snapshots?.read(graphId);
    return (bytes && (await LexicalIndex.fromSnapshot(bytes))) ?? new LexicalIndex();
  } catch (error) {
    logger.warn('the BM25 snapshot of a graph could not be read; rebuilding it', { graphId, error: (error as Error).message });
    return new LexicalIndex();
  }
}

export function createGraphIndexCache(deps: {
  source: IndexSource;
  embedder: Pick<Embedder, 'modelId' | 'dims'>;
  maxVectors: number;
  /** How long `indexFor` waits for a load before it throws TIMEOUT (the load goes on for the next caller); unset, no bound. */
  loadWaitMs?: number;
  snapshots?: LexicalSnapshots;
}) {
  const { source, embedder, maxVectors, loadWaitMs, snapshots } = deps;
  const cache = new Map<string, Cached>();
  const loading = new Map<string, Promise<Cached>>();
  let clock = 0;
  /** Chunks this cache has indexed from their text rather than read from a snapshot, since it was made. */
  let chunksFromText = 0;

  /** Least recently used graphs go first when the cache holds more than maxVectors vectors. */
  function evict(keep: string) {
    let total = [...cache.values()].reduce((sum, entry) => sum + entry.index.vectors.size, 0);
    for (const [graphId, entry] of [...cache].sort((a, b) => a[1].usedAt - b[1].usedAt)) {
      if (total <= maxVectors) break;
      if (graphId === keep) continue;
      cache.delete(graphId);
      total -= entry.index.vectors.size;
    }
  }

  /** Writes the snapshot after the load's search has had its answer: serialising a large index holds the CPU. */
  function leaveSnapshot(graphId: string, lexical: LexicalIndex) {
    setImmediate(() => {
      void Promise.resolve()
        .then(() => snapshots!.write(graphId, lexical.snapshot()))
        .catch((error: unknown) => logger.warn('the BM25 snapshot of a graph could not be written', { graphId, error: (error as Error).message }));
    });
  }

  async function reload(graphId: string, version: number, previous: Cached | undefined): Promise<Cached> {
    // A snapshot is read and parsed while the vectors load.
    const lexicalReady = previous ? Promise.resolve(previous.index.lexical) : readLexicalSnapshot(snapshots, graphId);
    const wanted = new Set(await source.documentIds(graphId));
    const { modelId, dims } = embedder;
    const vectors = previous?.index.vectors ?? new VectorIndex(dims);
    const present = new Set(vectors.documentIds());
    for (const documentId of present) if (!wanted.has(documentId)) vectors.remove(documentId);
    const lexicalUpToDate = lexicalReady.then((lexical) => {
      const indexed = new Set(lexical.documentIds());
      for (const documentId of indexed) if (!wanted.has(documentId)) lexical.remove(documentId);
      return { lexical, indexed };
    });
    const missing = [...wanted].filter((documentId) => !present.has(documentId));
    let chunksIndexed = 0;
    const load = async (documentId: string) => {
      const [stored, chunks] = await Promise.all([
        source.vectors(documentId),
        lexicalUpToDate.then(({ indexed }) => (indexed.has(documentId) ? undefined : source.chunks(documentId))),
      ]);
      const { lexical } = await lexicalUpToDate;
      // Vectors of another model (after a model change) do not compare with this one's queries.
      if (!stored || stored.model !== modelId || stored.dims !== dims) {
        lexical.remove(documentId);
        return;
      }
      vectors.put(documentId, stored.vectors);
      if (chunks) lexical.put(documentId, chunks), (chunksIndexed += chunks.length);
    };
    await pMap(missing, load, { concurrency: loadConcurrency });
    const index = { vectors, lexical: (await lexicalUpToDate).lexical };
    chunksFromText += chunksIndexed;
    if (snapshots && chunksIndexed >= snapshotAfterChunks) leaveSnapshot(graphId, index.lexical);
    const entry = { version, index, usedAt: ++clock };
    cache.set(graphId, entry);
    evict(graphId);
    return entry;
  }

  /** A load outlives the search that stopped waiting for it, so its failure is logged here rather than left unhandled. */
  function startLoad(graphId: string, version: number, previous: Cached | undefined): Promise<Cached> {
    const load = reload(graphId, version, previous).finally(() => loading.delete(graphId));
    load.catch((error: unknown) => logger.warn('a graph index could not be loaded', { graphId, error: (error as Error).message }));
    loading.set(graphId, load);
    return load;
  }

  /** The load, or TIMEOUT once `loadWaitMs` has passed (at once for 0): a cold load of a large graph can take longer than a search may. */
  async function withinWait(graphId: string, load: Promise<Cached>): Promise<Cached> {
    if (loadWaitMs === undefined) return load;
    const outOfTime = () => new TimeoutError(`the search index of graph ${graphId} is still loading; it goes on loading, so search again shortly`);
    let timer: NodeJS.Timeout | undefined;
    const deadline =
      loadWaitMs > 0
        ? new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(outOfTime()), loadWaitMs).unref();
          })
        : Promise.reject(outOfTime());
    try {
      return await Promise.race([load, deadline]);
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    stats: () => ({ chunksFromText }),

    /** `known` is the graph's version when the caller has just read it. */
    async indexFor(graphId: string, known?: number): Promise<GraphIndex> {
      const version = known ?? (await source.version(graphId));
      const cached = cache.get(graphId);
      if (cached && cached.version === version) {
        cached.usedAt = ++clock;
        return cached.index;
      }
      return (await withinWait(graphId, loading.get(graphId) ?? startLoad(graphId, version, cached))).index;
    },
  };
}

export type GraphIndexCache = ReturnType<typeof createGraphIndexCache>;
