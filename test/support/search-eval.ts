// Runs an evaluation set through the real search pipeline without the HTTP and DynamoDB layers: each document is
// rendered to its file format (the PDF and DOCX built by pdf-lib and docx), extracted, chunked, embedded by the given
// model, indexed (vectors and BM25), and every question is ranked as search ranks it.
import { type Calibration, scoreOf } from '../../functions/documents/calibration.js';
import { chunkPages } from '../../functions/documents/chunker.js';
import type { EvalDocument, EvalQuestion } from '../../bench/search-eval/workplace-set.js';
import { extractPages } from '../../functions/documents/extract.js';
import { type GraphIndex, type RankedHit, rankHybrid } from '../../functions/documents/hybrid-rank.js';
import { embeddingText } from '../../functions/documents/ingest.js';
import { LexicalIndex } from '../../functions/documents/lexical-index.js';
import type { Embedder } from '../../functions/documents/ports.js';
import { VectorIndex } from '../../functions/documents/vector-index.js';
import { buildDocx, buildPdf } from './document-files.js';

const escapeHtml = (text: string) => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

export async function renderDocument(document: EvalDocument): Promise<Uint8Array> {
  const { sections } = document;
  const encode = (text: string) => new TextEncoder().encode(text);
  switch (document.mimeType) {
    case 'application/pdf':
      return buildPdf(sections.map((section) => [section.heading, ...section.paragraphs]));
    case 'application/vnd.openxmlformats-officedocument.wordprocessingml.document':
      return buildDocx(sections);
    case 'text/html':
      return encode(
        `<html><body>${sections.map((section) => `<h2>${escapeHtml(section.heading)}</h2>${section.paragraphs.map((text) => `<p>${escapeHtml(text)}</p>`).join('')}`).join('\n')}</body></html>`,
      );
    case 'text/markdown':
      return encode(sections.map((section) => `## ${section.heading}\n\n${section.paragraphs.join('\n\n')}`).join('\n\n'));
    case 'text/csv':
      return encode(sections.map((section) => [section.heading, ...section.paragraphs].join('\n')).join('\n'));
    default:
      return encode(sections.map((section) => [section.heading, ...section.paragraphs].filter(Boolean).join('\n\n')).join('\n\n'));
  }
}

export interface EvalChunk {
  documentId: string;
  position: number;
  content: string;
  heading: string | null;
}

export interface PreparedSet {
  index: GraphIndex;
  chunks: Map<string, EvalChunk>;
  questions: Array<EvalQuestion & { vector: Float32Array }>;
}

const keyOf = (documentId: string, position: number) => `${documentId}#${position}`;

export async function prepareSet(embedder: Embedder, documents: EvalDocument[], questions: EvalQuestion[]): Promise<PreparedSet> {
  const index: GraphIndex = { vectors: new VectorIndex(embedder.dims), lexical: new LexicalIndex() };
  const chunks = new Map<string, EvalChunk>();
  const questionVectors = embedder.embed(questions.map((question) => question.question));
  for (const document of documents) {
    const drafts = chunkPages(await extractPages(await renderDocument(document), document.mimeType));
    const vectors = await embedder.embed(drafts.map(embeddingText));
    const block = new Float32Array(drafts.length * embedder.dims);
    vectors.forEach((vector, row) => {
      block.set(vector, row * embedder.dims);
    });
    index.vectors.put(document.id, block);
    index.lexical.put(document.id, drafts);
    for (const draft of drafts)
      chunks.set(keyOf(document.id, draft.position), { documentId: document.id, position: draft.position, content: draft.content, heading: draft.heading });
  }
  const vectors = await questionVectors;
  return { index, chunks, questions: questions.map((question, at) => ({ ...question, vector: vectors[at]! })) };
}

/** A result answers an answerable question when it comes from its document and holds its answer phrase. */
export function answers(set: PreparedSet, question: EvalQuestion, hit: { documentId: string; position: number }): boolean {
  if (question.documentId === undefined || hit.documentId !== question.documentId) return false;
  const chunk = set.chunks.get(keyOf(hit.documentId, hit.position));
  return !!chunk && `${chunk.heading ?? ''}\n${chunk.content}`.includes(question.answer);
}

/** Every candidate search would consider for each question, with its features (threshold 0, no limit). */
export function candidatesOf(set: PreparedSet, calibration: Calibration): Array<{ question: EvalQuestion; hits: Array<RankedHit & { relevant: boolean }> }> {
  return set.questions.map((question) => ({
    question,
    hits: rankHybrid(set.index, { query: question.vector, question: question.question, calibration, limit: Number.MAX_SAFE_INTEGER, threshold: 0 }).map(
      (hit) => ({
        ...hit,
        relevant: answers(set, question, hit),
      }),
    ),
  }));
}

export interface SetFigures {
  answerable: number;
  unanswerable: number;
  hitAt1: number;
  hitAt5: number;
  /** Share of answerable questions with no result at all. */
  answerableWithNoResult: number;
  /** Share of unanswerable questions with at least one result. */
  unanswerableWithResult: number;
}

/** The figures search would give at `threshold` and `limit`, over the questions `include` keeps. */
export function measure(
  candidates: ReturnType<typeof candidatesOf>,
  calibration: Calibration,
  options: { threshold: number; limit: number; include?: (questionIndex: number) => boolean },
): SetFigures {
  const counts = { answerable: 0, unanswerable: 0, hit1: 0, hit5: 0, noResult: 0, withResult: 0 };
  candidates.forEach(({ question, hits }, at) => {
    if (options.include && !options.include(at)) return;
    const shown = hits
      .map((hit) => ({ ...hit, score: scoreOf(calibration, hit) }))
      .filter((hit) => hit.score >= options.threshold)
      .sort((a, b) => b.score - a.score)
      .slice(0, options.limit);
    if (question.documentId === undefined) {
      counts.unanswerable++;
      if (shown.length) counts.withResult++;
      return;
    }
    counts.answerable++;
    if (shown.length === 0) counts.noResult++;
    if (shown[0]?.relevant) counts.hit1++;
    if (shown.slice(0, 5).some((hit) => hit.relevant)) counts.hit5++;
  });
  const share = (count: number, of: number) => (of ? count / of : 0);
  return {
    answerable: counts.answerable,
    unanswerable: counts.unanswerable,
    hitAt1: share(counts.hit1, counts.answerable),
    hitAt5: share(counts.hit5, counts.answerable),
    answerableWithNoResult: share(counts.noResult, counts.answerable),
    unanswerableWithResult: share(counts.withResult, counts.unanswerable),
  };
}
