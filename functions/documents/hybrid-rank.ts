// Hybrid ranking over one graph: the best chunks by embedding similarity and the best by BM25 become candidates, each
// gets both signals (a chunk found by one side is scored by the other too), and the calibration turns its cosine and
// term coverage into one score. BM25 only picks candidates: its rarity weights depend on the graph, the score must not.
// Candidates beyond `candidatePool` per side could only score lower on that side than the pool's own.
import { type Calibration, type Features, scoreOf } from './calibration.js';
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

export interface Candidate extends Features {
  documentId: string;
  position: number;
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

/** Best first, every candidate scoring at least `threshold`, at most `limit`; ties fall back to document and position. */
export function fuse(candidates: Iterable<Candidate>, input: Pick<RankInput, 'calibration' | 'limit' | 'threshold'>): RankedHit[] {
  const ranked: RankedHit[] = [];
  for (const { documentId, position, similarity, coverage } of candidates) {
    const score = scoreOf(input.calibration, { similarity, coverage });
    if (score >= input.threshold) ranked.push({ documentId, position, similarity, coverage, score });
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
    candidates.set(key, { documentId, position, similarity, coverage: lexicalOf.get(key)?.coverage ?? 0 });
  }
  return fuse(candidates.values(), input);
}
