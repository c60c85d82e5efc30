// Hybrid search in one graph the caller may read: embed the question, rank the graph's warm index by embedding and
// by BM25, and keep what the calibrated score says likely answers it.
import type { Caller } from '#platform/caller.js';
import { calibrationOf } from './calibration.js';
import type { GraphIndexCache } from './graph-index-cache.js';
import { type GraphService, personalGraphId } from './graph-service.js';
import { rankHybrid } from './hybrid-rank.js';
import { chunkIdOf } from './ingest.js';
import type { Embedder } from './ports.js';
import type { SearchInput } from './schemas.js';
import type { DocumentStore } from './store.js';

const round4 = (value: number) => Math.round(value * 10_000) / 10_000;

export function createSearch(deps: { store: DocumentStore; graphs: GraphService; embedder: Embedder; indexes: GraphIndexCache }) {
  const { store, graphs, embedder, indexes } = deps;

  return async function search(caller: Caller, input: SearchInput) {
    const calibration = calibrationOf(embedder.modelId);
    const graphId = input.graphId ?? personalGraphId(caller.userId);
    await graphs.requireMember(caller, graphId);
    const [index, [query]] = await Promise.all([indexes.indexFor(graphId), embedder.embed([input.query])]);
    const hits = rankHybrid(index, { query: query!, question: input.query, calibration, limit: input.limit, threshold: input.threshold })
      .map((hit) => ({ ...hit, score: round4(hit.score) }))
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
      return [{ chunkId: chunk.chunkId, documentId: hit.documentId, documentName, content: chunk.content, score: hit.score, position: chunk.position, pageNumber: chunk.pageNumber, heading: chunk.heading ?? null }];
    });
    return { results, count: results.length };
  };
}
