// One graph's chunks as a BM25 index (MiniSearch's BM25+), kept beside its vector index: the lexical half of hybrid
// search. Words are lower-cased, English stop words dropped and the rest stemmed (Porter), so "refunds" finds
// "refund" and "charged" finds "charges". The chunk's section heading is indexed with its text.
import MiniSearch, { type AsPlainObject } from 'minisearch';
import { stemmer } from 'stemmer';
import { eng } from 'stopword';

export interface LexicalChunk {
  position: number;
  content: string;
  heading?: string | null;
}

export interface LexicalHit {
  documentId: string;
  position: number;
  /** BM25+ score over the graph: grows with the number and rarity of the question's words the chunk holds. */
  bm25: number;
  /**
   * Share of the question's distinct terms that the chunk holds, in [0, 1]. Unweighted, so it does not move with what
   * else the graph holds; only a term common enough to be left out of the query (`isCommon`) is left out of it too.
   */
  coverage: number;
}

const stopWords = new Set(eng);
const wordPattern = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/**
 * Words that only ask, which the stop word list keeps: a chunk that answers "when does the lock open" rarely says
 * "when" or "does", so counting them would hold its coverage at a half.
 */
const askingWords = new Set(['when', 'why', 'does', 'did']);

const wordsOf = (text: string) => [...text.toLowerCase().matchAll(wordPattern)].map(([word]) => word.replace(/['’]s$/, ''));

/** The terms of a text as the index sees them. */
export function termsOf(text: string): string[] {
  return wordsOf(text)
    .filter((word) => !stopWords.has(word))
    .map(stemmer);
}

/** The distinct terms of a question that a chunk answering it may hold: its terms less the words that only ask. */
export function questionTermsOf(question: string): string[] {
  return [
    ...new Set(
      wordsOf(question)
        .filter((word) => !stopWords.has(word) && !askingWords.has(word))
        .map(stemmer),
    ),
  ];
}

/** The text of a chunk as both lexical indexes read it: its heading, then its content. */
const indexedText = (chunk: LexicalChunk) => (chunk.heading ? `${chunk.heading}\n${chunk.content}` : chunk.content);

/** Each term of a chunk with its count, and the chunk's length as BM25 measures it (its distinct terms, as MiniSearch does). */
export function chunkTermsOf(chunk: LexicalChunk): { counts: Map<string, number>; length: number } {
  const counts = new Map<string, number>();
  for (const term of termsOf(indexedText(chunk))) counts.set(term, (counts.get(term) ?? 0) + 1);
  return { counts, length: counts.size };
}

/** Rarity of a term held by `holding` of `total` chunks (BM25's idf); a term no chunk holds is the rarest there is. */
export const idfOf = (total: number, holding: number) => Math.log(1 + (total - holding + 0.5) / (holding + 0.5));

/**
 * A term held by more than this many chunks, and by more than `commonShare` of the graph, is left out of the lexical
 * query and of `coverage`, as a stop word of that graph: its BM25 weight is near zero, and it would make most of a
 * large graph a candidate to sort. No graph under 1,000 chunks has one, so there coverage depends on the chunk alone.
 */
const commonChunks = 1000;
const commonShare = 0.05;
export const isCommon = (holding: number, total: number) => holding > commonChunks && holding > commonShare * total;
/** The most chunks a term may be held by and still be searched, in a graph of `total` chunks. */
export const commonFrom = (total: number) => Math.max(commonChunks, commonShare * total);

const keyOf = (documentId: string, position: number) => `${documentId}\u0000${position}`;

type Engine = MiniSearch<{ id: string; text: string }>;
/** Documents reach MiniSearch as their terms joined by spaces (terms hold none), so it only splits them. */
const engineOptions = { fields: ['text'], tokenize: (terms: string) => (terms === '' ? [] : terms.split(' ')), processTerm: (term: string) => term };
/** Bumped whenever what a snapshot holds changes shape: an older snapshot is then rebuilt, not read. */
const snapshotFormat = 2;
/** A document in a snapshot: its id, its number of positions, and the chunks holding each of its terms. */
type SnapshotDocument = [documentId: string, positions: number, termIds: number[], chunks: number[]];
interface Snapshot {
  format?: number;
  terms: string[];
  documents: SnapshotDocument[];
  engine: AsPlainObject;
}

export class LexicalIndex {
  private readonly positions = new Map<string, number>();
  /** Chunks holding each term, overall and per document (to take a document's share back out). */
  private readonly chunkCounts = new Map<string, number>();
  private readonly documentTerms = new Map<string, Map<string, number>>();

  constructor(private readonly engine: Engine = new MiniSearch(engineOptions)) {}

  /**
   * The index as bytes, to be read back by `fromSnapshot` instead of being built again from the chunks: MiniSearch's
   * own serialisation, and each document's term counts (a term as its place in one list of the graph's terms).
   */
  snapshot(): Uint8Array {
    const terms = [...this.chunkCounts.keys()];
    const termIds = new Map(terms.map((term, id) => [term, id]));
    const documents: SnapshotDocument[] = [...this.positions].map(([documentId, positions]) => {
      const counts = this.documentTerms.get(documentId) ?? new Map<string, number>();
      return [documentId, positions, [...counts.keys()].map((term) => termIds.get(term)!), [...counts.values()]];
    });
    return Buffer.from(JSON.stringify({ format: snapshotFormat, terms, documents, engine: this.engine.toJSON() }));
  }

  /** An index read back from `snapshot()`'s bytes, or undefined for bytes of another format. */
  static async fromSnapshot(bytes: Uint8Array): Promise<LexicalIndex | undefined> {
    const parsed = JSON.parse(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('utf8')) as Snapshot;
    if (parsed.format !== snapshotFormat) return undefined;
    const index = new LexicalIndex(await MiniSearch.loadJSAsync(parsed.engine, engineOptions));
    for (const [documentId, positions, termIds, counts] of parsed.documents) {
      const terms = new Map<string, number>();
      termIds.forEach((id, at) => {
        const term = parsed.terms[id]!;
        terms.set(term, counts[at]!);
        index.chunkCounts.set(term, (index.chunkCounts.get(term) ?? 0) + counts[at]!);
      });
      index.positions.set(documentId, positions);
      index.documentTerms.set(documentId, terms);
    }
    return index;
  }

  get size(): number {
    return this.engine.documentCount;
  }

  /** Documents the index holds. */
  documentIds(): string[] {
    return [...this.positions.keys()];
  }

  put(documentId: string, chunks: LexicalChunk[]): void {
    this.remove(documentId);
    // Each chunk is split into terms once, for MiniSearch (given them joined, see engineOptions) and for the counts.
    const terms = new Map<string, number>();
    this.engine.addAll(
      chunks.map((chunk) => {
        const words = termsOf(indexedText(chunk));
        for (const term of new Set(words)) terms.set(term, (terms.get(term) ?? 0) + 1);
        return { id: keyOf(documentId, chunk.position), text: words.join(' ') };
      }),
    );
    this.positions.set(documentId, chunks.length ? Math.max(...chunks.map((chunk) => chunk.position)) + 1 : 0);
    for (const [term, count] of terms) this.chunkCounts.set(term, (this.chunkCounts.get(term) ?? 0) + count);
    this.documentTerms.set(documentId, terms);
  }

  remove(documentId: string): void {
    const count = this.positions.get(documentId);
    if (count === undefined) return;
    for (let position = 0; position < count; position++) {
      const id = keyOf(documentId, position);
      if (this.engine.has(id)) this.engine.discard(id);
    }
    this.positions.delete(documentId);
    for (const [term, count] of this.documentTerms.get(documentId) ?? []) {
      const left = (this.chunkCounts.get(term) ?? 0) - count;
      if (left > 0) this.chunkCounts.set(term, left);
      else this.chunkCounts.delete(term);
    }
    this.documentTerms.delete(documentId);
  }

  /** Every chunk holding at least one of the question's terms, best first. */
  search(question: string): LexicalHit[] {
    const total = this.engine.documentCount;
    const searched = questionTermsOf(question).filter((term) => !isCommon(this.chunkCounts.get(term) ?? 0, total));
    if (searched.length === 0) return [];
    return this.engine.search(searched.join(' ')).map((result) => {
      const [documentId, position] = (result.id as string).split('\u0000') as [string, string];
      return { documentId, position: Number(position), bm25: result.score, coverage: new Set(result.queryTerms).size / searched.length };
    });
  }
}

/** A chunk holding a term, as an inverted index kept outside the process stores it (term-store.ts). */
export interface Posting {
  documentId: string;
  position: number;
  /** How often the chunk holds the term. */
  count: number;
  /** The chunk's distinct terms. */
  length: number;
}

/** MiniSearch's BM25+ defaults, so both lexical indexes score alike. */
const bm25 = { k: 1.2, b: 0.7, d: 0.5 };

/**
 * The lexical hits of a question over postings read from an inverted index, scored as LexicalIndex scores them:
 * BM25+ summed over the question's terms a chunk holds, times how many it holds. `postings` has, for each of the
 * question's terms, the chunks holding it, or `common` with the number known to hold it when there were too many to
 * read (that term is then left out, as LexicalIndex leaves it out). `graph` is the graph's chunk count and summed
 * chunk lengths.
 */
export function scorePostings(question: string, postings: Map<string, Posting[] | { common: number }>, graph: { chunks: number; terms: number }): LexicalHit[] {
  const average = graph.chunks > 0 ? graph.terms / graph.chunks : 1;
  const hits = new Map<string, LexicalHit & { matched: number }>();
  let searched = 0;
  for (const term of questionTermsOf(question)) {
    const found = postings.get(term) ?? [];
    const holding = Array.isArray(found) ? found.length : found.common;
    if (!Array.isArray(found) || isCommon(holding, graph.chunks)) continue;
    searched += 1;
    const idf = idfOf(graph.chunks, holding);
    for (const { documentId, position, count, length } of found) {
      const key = keyOf(documentId, position);
      const hit = hits.get(key) ?? { documentId, position, bm25: 0, coverage: 0, matched: 0 };
      hit.bm25 += idf * (bm25.d + (count * (bm25.k + 1)) / (count + bm25.k * (1 - bm25.b + (bm25.b * length) / average)));
      hit.matched += 1;
      hits.set(key, hit);
    }
  }
  return [...hits.values()]
    .map(({ documentId, position, bm25: score, matched }) => ({ documentId, position, bm25: score * matched, coverage: matched / searched }))
    .sort((a, b) => b.bm25 - a.bm25);
}
