// Keeps the BM25 snapshots of graphs past `snapshotAfterChunks` holding every processed document, from the processing
// job (which has minutes, where a search has 29 s), so no search builds a large index from the chunks' text. Each
// graph's snapshot is read (or started empty), brought up to date with the graph (documents that left are taken out,
// completed ones it lacks are indexed, the job's own from the chunks it holds) and written back. Two jobs at once may
// each write over the other's addition; a cold load indexes what a snapshot lacks, and the next job puts it back.
import pMap from 'p-map';
import { type LexicalSnapshots, readLexicalSnapshot, snapshotAfterChunks } from './graph-index-cache.js';
import type { LexicalChunk } from './lexical-index.js';

export interface SnapshotSource {
  chunkCount(graphId: string): Promise<number>;
  documentIds(graphId: string): Promise<string[]>;
  /** Those of the documents whose processing has completed: only their chunks are final. */
  completed(documentIds: string[]): Promise<string[]>;
  chunks(documentId: string): Promise<LexicalChunk[]>;
}

/** Documents whose chunks are read at once while a snapshot is built. */
const readConcurrency = 16;

/**
 * `fromChunks`: the smallest graph that keeps a snapshot. `upToChunks`: the largest, where graphs past a size are
 * searched outside the process (large-graph-index.ts) and never loaded, so a snapshot of theirs would go unread.
 */
export function createSnapshotKeeper(deps: { source: SnapshotSource; snapshots: LexicalSnapshots; fromChunks?: number; upToChunks?: number }) {
  const { source, snapshots, fromChunks = snapshotAfterChunks, upToChunks = Number.POSITIVE_INFINITY } = deps;

  async function keep(graphId: string, known?: { documentId: string; chunks: LexicalChunk[] }) {
    const [lexical, wanted] = await Promise.all([readLexicalSnapshot(snapshots, graphId), source.documentIds(graphId).then((ids) => new Set(ids))]);
    const left = lexical.documentIds().filter((documentId) => !wanted.has(documentId));
    for (const documentId of left) lexical.remove(documentId);
    const indexed = new Set(lexical.documentIds());
    const addKnown = known !== undefined && wanted.has(known.documentId) && !indexed.has(known.documentId);
    if (addKnown) lexical.put(known.documentId, known.chunks), indexed.add(known.documentId);
    const missing = await source.completed([...wanted].filter((documentId) => !indexed.has(documentId)));
    const changed = left.length > 0 || addKnown || missing.length > 0;
    await pMap(missing, async (documentId) => lexical.put(documentId, await source.chunks(documentId)), { concurrency: readConcurrency });
    if (changed) await snapshots.write(graphId, lexical.snapshot());
  }

  /** The graphs of `graphIds` large enough to keep a snapshot. */
  async function due(graphIds: string[]): Promise<string[]> {
    const counts = await Promise.all(graphIds.map((graphId) => source.chunkCount(graphId)));
    return graphIds.filter((_, at) => counts[at]! >= fromChunks && counts[at]! <= upToChunks);
  }

  return {
    due,
    /** One graph at a time: a large graph's index takes hundreds of MB while it is rewritten. */
    async keep(graphIds: string[], known?: { documentId: string; chunks: LexicalChunk[] }): Promise<void> {
      for (const graphId of await due(graphIds)) await keep(graphId, known);
    },
  };
}

export type SnapshotKeeper = ReturnType<typeof createSnapshotKeeper>;
