// Processing of one uploaded document: extract -> chunk -> embed -> store, then `completed`; a file that cannot be
// read ends as `failed` with the reason. Chunks and vectors are written before the status flips and before the
// graphs' versions move, so a search that sees the new version finds everything it needs.
import type { Clock } from '#platform/clock.js';
import { isConditionFailure } from '#platform/dynamo.js';
import { logger } from '#platform/logger.js';
import { chunkPages } from './chunker.js';
import { ExtractionError, extractPages } from './extract.js';
import { type SupportedMimeType, maxUploadBytes } from './limits.js';
import type { BlobStore, Embedder } from './ports.js';
import type { DocumentStore, StoredChunk, StoredDocument } from './store.js';

/** What the model reads of a chunk: its section heading, then its text. Line breaks matter to a reader, not to the model. */
export const embeddingText = (chunk: { content: string; heading?: string | null }) => (chunk.heading ? `${chunk.heading}. ${chunk.content}` : chunk.content).replace(/\s+/g, ' ');

export const chunkIdOf = (documentId: string, position: number) => `chk_${documentId.slice(4)}_${position}`;

export function createIngest(deps: { store: DocumentStore; blobs: BlobStore; embedder: Embedder; clock: Clock }) {
  const { store, blobs, embedder, clock } = deps;

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
    const pages = await extractPages(bytes, document.mimeType as SupportedMimeType);
    return chunkPages(pages).map((draft) => ({ ...draft, documentId: document.documentId, chunkId: chunkIdOf(document.documentId, draft.position) }));
  }

  /** Read the graphs after the vectors are stored: a share committed before this read is bumped here, one after it bumps itself. */
  async function complete(documentId: string, chunkCount: number, startedAt: number) {
    const current = await store.getDocument(documentId);
    try {
      if (current) {
        const done = { status: 'completed' as const, chunkCount, processingTimeMs: clock.now() - startedAt, embeddingModel: embedder.modelId };
        return await store.setStatus(documentId, 'processing', done, current.graphIds);
      }
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
    }
    // Deleted while processing: leave no orphan chunks behind it.
    if (!(await store.getDocument(documentId))) await store.purgeContent(documentId);
  }

  return {
    /**
     * Processes a document in `processing`; anything else (already done, deleted meanwhile) is left alone, so a
     * retried job is harmless. `startedAt` is when the upload was accepted: processingTimeMs counts from there.
     */
    async process(documentId: string, startedAt = clock.now()): Promise<void> {
      const document = await store.getDocument(documentId);
      if (document?.status !== 'processing') return;
      try {
        const chunks = await chunksOf(document);
        // Chunks are written while the model runs. Both settle before a failure is handled, so the purge comes last.
        const [embedded, written] = await Promise.allSettled([embedder.embed(chunks.map(embeddingText)), store.putChunks(chunks)]);
        if (embedded.status === 'rejected') throw embedded.reason;
        if (written.status === 'rejected') throw written.reason;
        const vectors = embedded.value;
        await store.putVectors(documentId, embedder.modelId, embedder.dims, vectors);
        await complete(documentId, chunks.length, startedAt);
      } catch (error) {
        if (!(error instanceof ExtractionError)) logger.error('document processing failed', { documentId, error: (error as Error).message });
        await fail(document, startedAt, error instanceof ExtractionError ? error.message : 'processing failed; upload the file again');
      }
    },
  };
}

export type Ingest = ReturnType<typeof createIngest>;
