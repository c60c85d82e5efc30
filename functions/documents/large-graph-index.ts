// Graphs too large to load into one process (docs/data-model.md): vectors in a vector store queried by graph, the
// lexical index in DynamoDB (term-store.ts). Both are written for every graph where a vector store is configured, so
// a graph that grows past the size needs no migration; search reads them only past it (search.ts).
import { fuse, type Candidate, type RankInput, type RankedHit, candidateKey, candidatePool } from './hybrid-rank.js';
import { type LexicalChunk, questionTermsOf, scorePostings } from './lexical-index.js';
import type { GraphVectorStore } from './ports.js';
import type { GraphState } from './graph-store.js';
import type { TermStore } from './term-store.js';

/** Question terms whose postings one search reads; the rest count as terms no chunk holds. */
const maxQuestionTerms = 32;

export function createLargeGraphIndex(deps: { vectors: GraphVectorStore; terms: TermStore }) {
  const { vectors, terms } = deps;
  return {
    async add(graphId: string, documentId: string, chunks: LexicalChunk[], embedded: Float32Array[]): Promise<void> {
      await Promise.all([vectors.put(graphId, documentId, embedded), terms.put(graphId, documentId, chunks)]);
    },

    async remove(graphId: string, documentId: string, chunks: LexicalChunk[]): Promise<void> {
      await Promise.all([vectors.remove(graphId, documentId, chunks.length), terms.remove(graphId, documentId, chunks)]);
    },

    async rank(graphId: string, state: GraphState, input: RankInput): Promise<RankedHit[]> {
      const questionTerms = questionTermsOf(input.question).slice(0, maxQuestionTerms);
      const [byEmbedding, postings] = await Promise.all([
        vectors.query(graphId, input.query, candidatePool),
        terms.postings(graphId, questionTerms, state.chunkCount),
      ]);
      const byWords = scorePostings(input.question, postings, { chunks: state.chunkCount, terms: state.termCount });
      const lexicalOf = new Map(byWords.map((hit) => [candidateKey(hit.documentId, hit.position), hit]));
      const candidates = new Map<string, Candidate>();
      for (const { documentId, position, similarity } of byEmbedding) {
        candidates.set(candidateKey(documentId, position), {
          documentId,
          position,
          similarity,
          coverage: lexicalOf.get(candidateKey(documentId, position))?.coverage ?? 0,
        });
      }
      const wordsOnly = byWords.slice(0, candidatePool).filter((hit) => !candidates.has(candidateKey(hit.documentId, hit.position)));
      for (const { documentId, position, similarity } of await vectors.similarities(graphId, input.query, wordsOnly)) {
        candidates.set(candidateKey(documentId, position), {
          documentId,
          position,
          similarity,
          coverage: lexicalOf.get(candidateKey(documentId, position))!.coverage,
        });
      }
      return fuse(candidates.values(), input);
    },
  };
}

export type LargeGraphIndex = ReturnType<typeof createLargeGraphIndex>;
