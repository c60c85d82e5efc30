// Semantic search in one graph the caller may read: embed the question, scan the graph's warm index, calibrate.
import type { Caller } from '#platform/caller.js';
import { knotsOf, toScore, toSimilarity } from './calibration.js';
import type { GraphIndexCache } from './graph-index-cache.js';
import { type GraphService, personalGraphId } from './graph-service.js';
import { chunkIdOf } from './ingest.js';
import type { Embedder } from './ports.js';
import type { SearchInput } from './schemas.js';
import type { DocumentStore } from './store.js';

const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

export function createSearch(deps: { store: DocumentStore; graphs: GraphService; embedder: Embedder; indexes: GraphIndexCache }) {
  const { store, graphs, embedder, indexes } = deps;

  return async function search(caller: Caller, input: SearchInput) {
    const knots = knotsOf(embedder.modelId);
    const graphId = input.graphId ?? personalGraphId(caller.userId);
    await graphs.requireMember(caller, graphId);
    const [index, [query]] = await Promise.all([indexes.indexFor(graphId), embedder.embed([input.query])]);
    const hits = index
      .search(query!, input.limit, toSimilarity(knots, input.threshold))
      .map((hit) => ({ ...hit, score: round4(toScore(knots, hit.similarity)) }))
      .filter((hit) => hit.score >= input.threshold);
    const [chunks, documents] = await Promise.all([
      store.getChunks(hits.map(({ documentId, position }) => ({ documentId, position }))),
      store.getDocuments(hits.map((hit) => hit.documentId)),
    ]);
    const chunkByKey = new Map(chunks.map((chunk) => [chunkIdOf(chunk.documentId, chunk.position), chunk]));
    const nameOf = new Map(documents.map((document) => [document.documentId, document.title || document.filename]));
    // A document deleted since the index loaded has neither record nor chunks: it drops out here.
    const results = hits.flatMap((hit) => {
      const chunk = chunkByKey.get(chunkIdOf(hit.documentId, hit.position));
      const documentName = nameOf.get(hit.documentId);
      if (!chunk || documentName === undefined) return [];
      return [{ chunkId: chunk.chunkId, documentId: hit.documentId, documentName, content: chunk.content, score: hit.score, position: chunk.position, pageNumber: chunk.pageNumber }];
    });
    return { results, count: results.length };
  };
}
