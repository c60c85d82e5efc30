// Warm per-graph indexes (vectors and BM25 over the chunks), one set per process (a Lambda container, or the local
// server). Each search reads the graph's content version (one strongly consistent GetItem); every write to a graph's
// contents bumps that version in the same transaction, so a changed version means "reload", and the reload only
// fetches documents that are new.
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

interface Cached {
  version: number;
  index: GraphIndex;
  usedAt: number;
}

/** Documents whose vectors load at once during a reload. */
const loadConcurrency = 16;

export function createGraphIndexCache(deps: { source: IndexSource; embedder: Pick<Embedder, 'modelId' | 'dims'>; maxVectors: number }) {
  const { source, embedder, maxVectors } = deps;
  const cache = new Map<string, Cached>();
  const loading = new Map<string, Promise<Cached>>();
  let clock = 0;

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

  async function reload(graphId: string, version: number, previous: Cached | undefined): Promise<Cached> {
    const wanted = new Set(await source.documentIds(graphId));
    const { modelId, dims } = embedder;
    const index = previous?.index ?? { vectors: new VectorIndex(dims), lexical: new LexicalIndex() };
    const present = new Set(index.vectors.documentIds());
    for (const documentId of present) if (!wanted.has(documentId)) index.vectors.remove(documentId), index.lexical.remove(documentId);
    const missing = [...wanted].filter((documentId) => !present.has(documentId));
    const lane = async () => {
      for (let documentId = missing.shift(); documentId; documentId = missing.shift()) {
        const [stored, chunks] = await Promise.all([source.vectors(documentId), source.chunks(documentId)]);
        // Vectors of another model (after a model change) do not compare with this one's queries.
        if (!stored || stored.model !== modelId || stored.dims !== dims) continue;
        index.vectors.put(documentId, stored.vectors);
        index.lexical.put(documentId, chunks);
      }
    };
    await Promise.all(Array.from({ length: loadConcurrency }, lane));
    const entry = { version, index, usedAt: ++clock };
    cache.set(graphId, entry);
    evict(graphId);
    return entry;
  }

  return {
    /** `known` is the graph's version when the caller has just read it. */
    async indexFor(graphId: string, known?: number): Promise<GraphIndex> {
      const version = known ?? (await source.version(graphId));
      const cached = cache.get(graphId);
      if (cached && cached.version === version) {
        cached.usedAt = ++clock;
        return cached.index;
      }
      const inFlight = loading.get(graphId);
      if (inFlight) return (await inFlight).index;
      const load = reload(graphId, version, cached).finally(() => loading.delete(graphId));
      loading.set(graphId, load);
      return (await load).index;
    },
  };
}

export type GraphIndexCache = ReturnType<typeof createGraphIndexCache>;
