// Processing of one uploaded document: extract and chunk (in a worker of its own, extract-worker.ts) -> embed ->
// store, then `completed`; a file that cannot be read ends as `failed` with the reason. Chunks and vectors are written before the status flips and before the
// graphs' versions move, so a search that sees the new version finds everything it needs. Where large graphs are
// kept outside the process (large-graph-index.ts), the document is written there too, for each of its graphs. The job
// then leaves the BM25 snapshot of each of its graphs large enough to keep one holding it (snapshot-keeper.ts).
import type { Clock } from '#platform/clock.js';
import { isConditionFailure } from '#platform/dynamo.js';
import { logger } from '#platform/logger.js';
import { ExtractionError } from './extract-structured.js';
import { extractChunks } from './extract-worker.js';
import type { LargeGraphIndex } from './large-graph-index.js';
import { chunkTermsOf } from './lexical-index.js';
import { type SupportedMimeType, maxUploadBytes } from './limits.js';
import type { BlobStore, Embedder } from './ports.js';
import type { SnapshotKeeper } from './snapshot-keeper.js';
import type { DocumentStore, StoredChunk, StoredDocument } from './store.js';

/** What the model reads of a chunk: its section heading, then its text. Line breaks matter to a reader, not to the model. */
export const embeddingText = (chunk: { content: string; heading?: string | null }) =>
  (chunk.heading ? `${chunk.heading}. ${chunk.content}` : chunk.content).replace(/\s+/g, ' ');

export const chunkIdOf = (documentId: string, position: number) => `chk_${documentId.slice(4)}_${position}`;

/** Rounds of completing a document whose graphs change meanwhile (each share or unshare moves its revision). */
const completeAttempts = 5;

export function createIngest(deps: {
  store: DocumentStore;
  blobs: BlobStore;
  embedder: Embedder;
  clock: Clock;
  largeGraphs?: LargeGraphIndex;
  snapshots?: SnapshotKeeper;
}) {
  const { store, blobs, embedder, clock, largeGraphs, snapshots } = deps;

  async function fail(document: StoredDocument, startedAt: number, reason: string) {
    await store.purgeContent(document.documentId);
    await store
      .setStatus(document.documentId, 'processing', { status: 'failed', failureReason: reason, processingTimeMs: clock.now() - startedAt })
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
  }

  async function chunksOf(document: StoredDocument): Promise<StoredChunk[]> {
    const bytes = await blobs.get(document.blobKey);
    if (!bytes) throw new ExtractionError('the original file is missing from storage');
    if (bytes.length > maxUploadBytes) throw new ExtractionError(`the file is ${bytes.length} bytes; the limit is ${maxUploadBytes}`);
    const drafts = await extractChunks(bytes, document.mimeType as SupportedMimeType);
    return drafts.map((draft) => ({ ...draft, documentId: document.documentId, chunkId: chunkIdOf(document.documentId, draft.position) }));
  }

  /**
   * Read the graphs after the vectors are stored: a share committed before this read is counted here (the transaction
   * checks the revision read), one after it finds the vectors and writes its graph itself.
   */
  async function complete(documentId: string, chunks: StoredChunk[], vectors: Float32Array[], startedAt: number): Promise<string[] | undefined> {
    const termCount = chunks.reduce((sum, chunk) => sum + chunkTermsOf(chunk).length, 0);
    const written = new Set<string>();
    let graphIds: string[] = [];
    let completed = false;
    for (let attempt = 0; attempt < completeAttempts; attempt++) {
      const current = await store.getDocument(documentId);
      graphIds = current?.graphIds ?? [];
      if (current?.status !== 'processing') break;
      const missing = largeGraphs ? current.graphIds.filter((graphId) => !written.has(graphId)) : [];
      await Promise.all(missing.map((graphId) => largeGraphs!.add(graphId, documentId, chunks, vectors).then(() => written.add(graphId))));
      try {
        const done = {
          status: 'completed' as const,
          chunkCount: chunks.length,
          termCount,
          processingTimeMs: clock.now() - startedAt,
          embeddingModel: embedder.modelId,
        };
        await store.setStatus(documentId, 'processing', done, {
          graphIds: current.graphIds,
          revision: current.revision,
          change: { chunks: chunks.length, terms: termCount },
        });
        completed = true;
        break;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
    // Graphs it left meanwhile keep none of it; a document deleted meanwhile (in no graph) leaves no orphan chunks.
    await Promise.all([...written].filter((graphId) => !graphIds.includes(graphId)).map((graphId) => largeGraphs!.remove(graphId, documentId, chunks)));
    if (graphIds.length === 0) await store.purgeContent(documentId);
    return completed ? graphIds : undefined;
  }

  /**
   * Processes a document in `processing`; anything else (already done, deleted meanwhile) is left alone, so a
   * retried job is harmless. `startedAt` is when the upload was accepted: processingTimeMs counts from there.
   * Answers the graphs and chunks of a document it completed.
   */
  async function process(documentId: string, startedAt = clock.now()): Promise<{ graphIds: string[]; chunks: StoredChunk[] } | undefined> {
    const document = await store.getDocument(documentId);
    if (document?.status !== 'processing') return undefined;
    try {
      const chunks = await chunksOf(document);
      // Chunks are written while the model runs. Both settle before a failure is handled, so the purge comes last.
      const [embedded, written] = await Promise.allSettled([embedder.embed(chunks.map(embeddingText)), store.putChunks(chunks)]);
      if (embedded.status === 'rejected') throw embedded.reason;
      if (written.status === 'rejected') throw written.reason;
      const vectors = embedded.value;
      await store.putVectors(documentId, embedder.modelId, embedder.dims, vectors);
      const graphIds = await complete(documentId, chunks, vectors, startedAt);
      return graphIds && { graphIds, chunks };
    } catch (error) {
      if (!(error instanceof ExtractionError)) logger.error('document processing failed', { documentId, error: (error as Error).message });
      await fail(document, startedAt, error instanceof ExtractionError ? error.message : 'processing failed; upload the file again');
      return undefined;
    }
  }

  return {
    process,

    /** Whether a completed document's graphs need the job to bring their snapshots up to date (see `job`). */
    async snapshotsDue(graphIds: string[]): Promise<boolean> {
      return snapshots !== undefined && (await snapshots.due(graphIds)).length > 0;
    },

    /**
     * The processing job: processes the document if it still needs it, then leaves the snapshot of each large
     * enough graph holding it, also for a document processed within its upload request (which hands this on).
     * A failure to write a snapshot fails the job, so it is tried again; the document stays completed.
     */
    async job(documentId: string): Promise<void> {
      const done = await process(documentId);
      if (!snapshots) return;
      if (done) return snapshots.keep(done.graphIds, { documentId, chunks: done.chunks });
      const document = await store.getDocument(documentId);
      if (document?.status === 'completed') await snapshots.keep(document.graphIds);
    },
  };
}

export type Ingest = ReturnType<typeof createIngest>;
