// Hybrid search in one graph the caller may read: embed the question, rank the graph by embedding and by BM25, and
// keep what the calibrated score says likely answers it. A graph is ranked from this process's warm index, unless it
// is too large to load into one (docs/data-model.md) and large graphs are kept outside it (large-graph-index.ts).
import type { Caller } from '#platform/caller.js';
import { calibrationOf } from './calibration.js';
import type { GraphIndexCache } from './graph-index-cache.js';
import { type GraphService, personalGraphId } from './graph-service.js';
import type { GraphState } from './graph-store.js';
import { rankHybrid } from './hybrid-rank.js';
import { chunkIdOf } from './ingest.js';
import type { LargeGraphIndex } from './large-graph-index.js';
import type { Embedder } from './ports.js';
import type { SearchInput } from './schemas.js';
import type { DocumentStore } from './store.js';

const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

export interface LargeGraphs {
  index: LargeGraphIndex;
  /** A graph of more chunks than this is searched in `index`. */
  fromChunks: number;
}

export function createSearch(deps: {
  store: DocumentStore;
  graphs: GraphService;
  embedder: Embedder;
  indexes: GraphIndexCache;
  state: (graphId: string) => Promise<GraphState>;
  largeGraphs?: LargeGraphs;
}) {
  const { store, graphs, embedder, indexes, largeGraphs } = deps;

  return async function search(caller: Caller, input: SearchInput) {
    const calibration = calibrationOf(embedder.modelId);
    const graphId = input.graphId ?? personalGraphId(caller.userId);
    await graphs.requireMember(caller, graphId);
    const [state, [query]] = await Promise.all([deps.state(graphId), embedder.embed([input.query])]);
    const rankInput = { query: query!, question: input.query, calibration, limit: input.limit, threshold: input.threshold };
    const ranked =
      largeGraphs && state.chunkCount > largeGraphs.fromChunks
        ? await largeGraphs.index.rank(graphId, state, rankInput)
        : rankHybrid(await indexes.indexFor(graphId, state.version), rankInput);
    const hits = ranked.map((hit) => ({ ...hit, score: round4(hit.score) })).filter((hit) => hit.score >= input.threshold);
    const [chunks, documents] = await Promise.all([
      store.getChunks(hits.map(({ documentId, position }) => ({ documentId, position }))),
      store.getDocuments(hits.map((hit) => hit.documentId)),
    ]);
    const chunkByKey = new Map(chunks.map((chunk) => [chunkIdOf(chunk.documentId, chunk.position), chunk]));
    // A document deleted or taken out of the graph since it was indexed drops out here.
    const nameOf = new Map(
      documents.filter((document) => document.graphIds.includes(graphId)).map((document) => [document.documentId, document.title || document.filename]),
    );
    const results = hits.flatMap((hit) => {
      const chunk = chunkByKey.get(chunkIdOf(hit.documentId, hit.position));
      const documentName = nameOf.get(hit.documentId);
      if (!chunk || documentName === undefined) return [];
      return [
        {
          chunkId: chunk.chunkId,
          documentId: hit.documentId,
          documentName,
          content: chunk.content,
          score: hit.score,
          position: chunk.position,
          pageNumber: chunk.pageNumber,
          heading: chunk.heading ?? null,
        },
      ];
    });
    return { results, count: results.length };
  };
}
