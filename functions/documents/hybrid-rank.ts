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

export interface Candidate {
  documentId: string;
  position: number;
  similarity: number;
  bm25: number;
  coverage: number;
}

export interface RankInput {
  query: Float32Array;
  question: string;
  calibration: Calibration;
  limit: number;
  threshold: number;
}

export const candidatePool = 50;

export const candidateKey = (documentId: string, position: number) => `${documentId}\u0000${position}`;

/**
 * Best first, every candidate scoring at least `threshold`, at most `limit`; ties fall back to document and position.
 * `spread` is the count, mean and deviation of the question's cosines over the graph, as far as they are known.
 */
export function fuse(candidates: Iterable<Candidate>, spread: { count: number; mean: number; deviation: number }, input: Pick<RankInput, 'calibration' | 'limit' | 'threshold'>): RankedHit[] {
  const ranked: RankedHit[] = [];
  for (const { documentId, position, similarity, bm25, coverage } of candidates) {
    const features = { similarity, standout: standoutOf(input.calibration, similarity, spread), bm25, coverage };
    const score = scoreOf(input.calibration, features);
    if (score >= input.threshold) ranked.push({ documentId, position, ...features, score });
  }
  ranked.sort((a, b) => b.score - a.score || (a.documentId < b.documentId ? -1 : a.documentId > b.documentId ? 1 : a.position - b.position));
  return ranked.slice(0, input.limit);
}

/** Ranks a warm graph held in this process. */
export function rankHybrid(index: GraphIndex, input: RankInput): RankedHit[] {
  const { vectors, lexical } = index;
  const byEmbedding = vectors.search(input.query, candidatePool, -1);
  const byWords = lexical.search(input.question);
  const lexicalOf = new Map(byWords.map((hit) => [candidateKey(hit.documentId, hit.position), hit]));
  const candidates = new Map<string, Candidate>();
  for (const { documentId, position } of [...byEmbedding, ...byWords.slice(0, candidatePool)]) {
    const key = candidateKey(documentId, position);
    // A chunk the lexical index holds but the vector index does not (vectors of another model) is not ranked.
    const similarity = vectors.similarityOf(documentId, position);
    if (similarity === undefined || candidates.has(key)) continue;
    const words = lexicalOf.get(key);
    candidates.set(key, { documentId, position, similarity, bm25: words?.bm25 ?? 0, coverage: words?.coverage ?? 0 });
  }
  return fuse(candidates.values(), vectors.lastSpread, input);
}
