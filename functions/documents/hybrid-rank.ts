// Hybrid ranking over one graph: the best chunks by embedding similarity and the best by BM25 become candidates, each
// gets both signals (a chunk found by one side is scored by the other too), and the calibration turns them into one
// score. Candidates beyond `candidatePool` per side could only score lower on that side than the pool's own.
import { type Calibration, type Features, scoreOf, standoutOf } from './calibration.js';
import type { LexicalIndex } from './lexical-index.js';
import type { VectorIndex } from './vector-index.js';

export interface GraphIndex {
  vectors: VectorIndex;
  lexical: LexicalIndex;
}

export interface RankedHit extends Features {
  documentId: string;
  position: number;
  score: number;
}

export const candidatePool = 50;

const keyOf = (documentId: string, position: number) => `${documentId}\u0000${position}`;

/** Best first, every hit scoring at least `threshold`, at most `limit`. Ties fall back to document and position. */
export function rankHybrid(index: GraphIndex, input: { query: Float32Array; question: string; calibration: Calibration; limit: number; threshold: number }): RankedHit[] {
  const { vectors, lexical } = index;
  const byEmbedding = vectors.search(input.query, candidatePool, -1);
  const byWords = lexical.search(input.question);
  const lexicalOf = new Map(byWords.map((hit) => [keyOf(hit.documentId, hit.position), hit]));
  const candidates = new Map<string, { documentId: string; position: number }>();
  for (const hit of [...byEmbedding, ...byWords.slice(0, candidatePool)]) candidates.set(keyOf(hit.documentId, hit.position), hit);
  const ranked: RankedHit[] = [];
  for (const [key, { documentId, position }] of candidates) {
    // A chunk the lexical index holds but the vector index does not (vectors of another model) is not ranked.
    const similarity = vectors.similarityOf(documentId, position);
    if (similarity === undefined) continue;
    const words = lexicalOf.get(key);
    const features = { similarity, standout: standoutOf(input.calibration, similarity, vectors.lastSpread), bm25: words?.bm25 ?? 0, coverage: words?.coverage ?? 0 };
    const score = scoreOf(input.calibration, features);
    if (score >= input.threshold) ranked.push({ documentId, position, ...features, score });
  }
  ranked.sort((a, b) => b.score - a.score || (a.documentId < b.documentId ? -1 : a.documentId > b.documentId ? 1 : a.position - b.position));
  return ranked.slice(0, input.limit);
}
