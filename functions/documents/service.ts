// Documents: upload (inline or through an upload URL), read, share between graphs, delete, list, search.
// A document is readable by its owner and by whoever may read one of its graphs; only its owner deletes it.
import type { Clock } from '#platform/clock.js';
import { isConditionFailure } from '#platform/dynamo.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#platform/errors.js';
import type { Caller } from '#platform/caller.js';
import { newId } from '#platform/ids.js';
import { logger } from '#platform/logger.js';
import { type GraphService, personalGraphId } from './graph-service.js';
import type { Ingest } from './ingest.js';
import type { LargeGraphIndex } from './large-graph-index.js';
import { maxGraphsPerDocument, maxUploadBytes, syncMaxBytes, uploadUrlTtlSeconds } from './limits.js';
import type { BlobStore, DocumentJobs } from './ports.js';
import type { DocumentStatus, UploadInput, UploadUrlInput } from './schemas.js';
import type { createSearch } from './search.js';
import type { DocumentStore, StoredDocument, StoredEntry } from './store.js';

type NewDocument = Omit<UploadUrlInput, 'size'>;

const summary = (document: StoredDocument) => ({
  documentId: document.documentId,
  filename: document.filename,
  title: document.title,
  author: document.author,
  chunkCount: document.chunkCount,
  uploadedAt: document.uploadedAt,
  productTags: document.productTags,
  status: document.status,
});

const conflictOnRace = (what: string) => (error: unknown) => {
  if (isConditionFailure(error)) throw new ConflictError(`the document changed while ${what}; try again`);
  throw error;
};

export interface DocumentServiceDeps {
  store: DocumentStore;
  graphs: GraphService;
  blobs: BlobStore;
  ingest: Ingest;
  jobs: DocumentJobs;
  search: ReturnType<typeof createSearch>;
  clock: Clock;
  /** Where large graphs are kept outside the process (on AWS); every graph of a document is written there too. */
  largeGraphs?: LargeGraphIndex;
}

export function createDocumentService(deps: DocumentServiceDeps) {
  const { store, graphs, blobs, ingest, jobs, clock, largeGraphs } = deps;

  /** A document still processing has no vectors yet: its completion writes every graph it is in by then. */
  async function addToLargeGraph(index: LargeGraphIndex, graphId: string, documentId: string) {
    const [stored, chunks] = await Promise.all([store.getVectors(documentId), store.listChunks(documentId)]);
    if (!stored) return;
    const rows = Array.from({ length: stored.vectors.length / stored.dims }, (_, row) => stored.vectors.subarray(row * stored.dims, (row + 1) * stored.dims));
    await index.add(graphId, documentId, chunks, rows);
  }

  async function removeFromLargeGraphs(index: LargeGraphIndex, graphIds: string[], documentId: string) {
    const chunks = await store.listChunks(documentId);
    await Promise.all(graphIds.map((graphId) => index.remove(graphId, documentId, chunks)));
  }

  /** NOT_FOUND unless the caller owns the document or may read one of its graphs. */
  async function readable(caller: Caller, documentId: string): Promise<StoredDocument> {
    const document = await store.getDocument(documentId);
    if (document?.ownerId === caller.userId) return document;
    for (const graphId of document?.graphIds ?? []) if (await graphs.roleIn(caller.userId, graphId)) return document!;
    throw new NotFoundError('documentId', documentId, 'document');
  }

  async function owned(caller: Caller, documentId: string): Promise<StoredDocument> {
    const document = await readable(caller, documentId);
    if (document.ownerId !== caller.userId) throw new ForbiddenError(`only the owner of document ${documentId} may do this`);
    return document;
  }

  /** The owner sees every graph of the document; others only the graphs they may read themselves. */
  async function visibleGraphIds(caller: Caller, document: StoredDocument, graphIds = document.graphIds): Promise<string[]> {
    if (document.ownerId === caller.userId) return graphIds;
    const roles = await Promise.all(graphIds.map((graphId) => graphs.roleIn(caller.userId, graphId)));
    return graphIds.filter((_, index) => roles[index]);
  }

  async function create(
    caller: Caller,
    input: NewDocument,
    sizeBytes: number,
    status: DocumentStatus,
  ): Promise<{ document: StoredDocument; entry: StoredEntry }> {
    const graphId = input.graphId ?? personalGraphId(caller.userId);
    await graphs.requireWritable(caller, graphId);
    const documentId = newId('doc');
    const now = clock.now();
    const document: StoredDocument = {
      documentId,
      ownerId: caller.userId,
      filename: input.filename,
      title: input.title ?? input.filename,
      author: input.author ?? null,
      mimeType: input.mimeType,
      sizeBytes,
      productTags: input.productTags,
      status,
      uploadedAt: now,
      chunkCount: 0,
      graphIds: [graphId],
      revision: 0,
      blobKey: `originals/${documentId}`,
      processingTimeMs: null,
      failureReason: null,
      embeddingModel: null,
    };
    return { document, entry: { graphId, documentId, isPrimary: true, sharedAt: now, sharedByUserId: caller.userId, shareReason: null } };
  }

  /**
   * A completed document that landed within a request in a graph keeping a BM25 snapshot gets the processing job for
   * the snapshot only: rewriting it takes seconds.
   */
  async function snapshotJob(documentId: string, graphIds: string[]) {
    if (!(await ingest.snapshotsDue(graphIds))) return;
    await jobs.start({ documentId }).catch((error: unknown) =>
      logger.warn('could not start the BM25 snapshot update; a cold load indexes the document from its chunks', {
        documentId,
        error: (error as Error).message,
      }),
    );
  }

  /** Small files finish within the request; larger ones go to a job and answer `processing`. */
  async function dispatch(document: StoredDocument, startedAt: number) {
    if (document.sizeBytes <= syncMaxBytes) {
      const done = await ingest.process(document.documentId, startedAt);
      if (done) await snapshotJob(document.documentId, done.graphIds);
    } else {
      await jobs.start({ documentId: document.documentId }).catch(async (error: unknown) => {
        logger.error('could not start document processing', { documentId: document.documentId, error: (error as Error).message });
        const failed = {
          status: 'failed' as const,
          failureReason: 'processing could not start; upload the file again',
          processingTimeMs: clock.now() - startedAt,
        };
        await store.setStatus(document.documentId, 'processing', failed);
      });
    }
    const current = (await store.getDocument(document.documentId)) ?? document;
    return {
      documentId: current.documentId,
      status: current.status,
      chunkCount: current.chunkCount,
      processingTimeMs: current.processingTimeMs ?? clock.now() - startedAt,
      graphIds: current.graphIds,
      ...(current.failureReason && { failureReason: current.failureReason }),
    };
  }

  return {
    async upload(caller: Caller, input: UploadInput) {
      const startedAt = clock.now();
      const bytes = Buffer.from(input.file, 'base64');
      if (bytes.length === 0) throw new ValidationError('file', input.file.slice(0, 100), 'file decodes to no bytes');
      if (bytes.length > maxUploadBytes) throw new ValidationError('file', bytes.length, `file is ${bytes.length} bytes; the limit is ${maxUploadBytes}`);
      const { document, entry } = await create(caller, input, bytes.length, 'processing');
      await blobs.put(document.blobKey, bytes, document.mimeType);
      await store.createDocument(document, entry);
      return dispatch(document, startedAt);
    },

    async createUploadUrl(caller: Caller, input: UploadUrlInput) {
      const { document, entry } = await create(caller, input, input.size, 'uploading');
      const target = await blobs.uploadTarget(document.blobKey, document.mimeType, input.size, uploadUrlTtlSeconds);
      await store.createDocument(document, entry);
      return {
        documentId: document.documentId,
        status: document.status,
        uploadUrl: target.url,
        method: target.method,
        headers: target.headers,
        expiresAt: document.uploadedAt + uploadUrlTtlSeconds * 1000,
        maxBytes: input.size,
      };
    },

    async completeUpload(caller: Caller, documentId: string) {
      const startedAt = clock.now();
      const document = await owned(caller, documentId);
      if (document.status !== 'uploading') throw new ConflictError(`document ${documentId} is ${document.status}, not uploading`);
      const sizeBytes = await blobs.sizeOf(document.blobKey);
      if (sizeBytes === undefined) throw new ConflictError(`nothing has been uploaded for document ${documentId}; PUT the file to its upload URL first`);
      await store.setStatus(documentId, 'uploading', { status: 'processing', sizeBytes }).catch(conflictOnRace('completing the upload'));
      return dispatch({ ...document, status: 'processing', sizeBytes }, startedAt);
    },

    async get(caller: Caller, documentId: string) {
      const document = await readable(caller, documentId);
      const chunks = await store.listChunks(documentId);
      return {
        document: { ...summary(document), mimeType: document.mimeType, sizeBytes: document.sizeBytes, graphIds: await visibleGraphIds(caller, document) },
        chunks: chunks.map(({ chunkId, content, position, pageNumber, heading }) => ({ chunkId, content, position, pageNumber, heading: heading ?? null })),
      };
    },

    async status(caller: Caller, documentId: string) {
      const { status, chunkCount, uploadedAt, processingTimeMs, failureReason } = await readable(caller, documentId);
      return { documentId, status, chunkCount, uploadedAt, processingTimeMs, failureReason };
    },

    async chunks(caller: Caller, documentId: string) {
      await readable(caller, documentId);
      const chunks = (await store.listChunks(documentId)).map(({ chunkId, content, position, pageNumber, charOffset, heading }) => ({
        chunkId,
        documentId,
        content,
        position,
        pageNumber,
        charOffset,
        heading: heading ?? null,
      }));
      return { chunks, count: chunks.length };
    },

    /** Irreversible: the record and every graph entry at once, then chunks, vectors and the original. */
    async remove(caller: Caller, documentId: string) {
      const document = await owned(caller, documentId);
      await store.remove(document).catch(conflictOnRace('deleting it'));
      if (largeGraphs) await removeFromLargeGraphs(largeGraphs, document.graphIds, documentId);
      const chunksDeleted = await store.purgeContent(documentId);
      await blobs.delete(document.blobKey);
      return { documentId, chunksDeleted };
    },

    async share(caller: Caller, input: { documentId: string; targetGraphId: string; shareReason?: string }) {
      const document = await readable(caller, input.documentId);
      await graphs.requireWritable(caller, input.targetGraphId, 'targetGraphId');
      if (document.graphIds.includes(input.targetGraphId)) throw new ConflictError(`document ${input.documentId} is already in ${input.targetGraphId}`);
      if (document.graphIds.length >= maxGraphsPerDocument) throw new ConflictError(`a document is in at most ${maxGraphsPerDocument} graphs`);
      const entry = {
        graphId: input.targetGraphId,
        documentId: document.documentId,
        isPrimary: false,
        sharedAt: clock.now(),
        sharedByUserId: caller.userId,
        shareReason: input.shareReason ?? null,
      };
      await store.share(document, entry).catch(conflictOnRace('sharing it'));
      if (largeGraphs) await addToLargeGraph(largeGraphs, entry.graphId, document.documentId);
      if (document.status === 'completed') await snapshotJob(document.documentId, [entry.graphId]);
      return {
        documentId: document.documentId,
        graphIds: await visibleGraphIds(caller, document, [...document.graphIds, entry.graphId]),
        shareEvent: { sharedAt: entry.sharedAt, sharedBy: caller.userId, reason: entry.shareReason },
      };
    },

    /** The document's owner, whoever shared it there, or the graph's owner may take it out of a graph; never the primary one. */
    async unshare(caller: Caller, documentId: string, graphId: string) {
      const document = await readable(caller, documentId);
      if (!(await visibleGraphIds(caller, document)).includes(graphId)) throw new NotFoundError('graphId', graphId, 'graph');
      if (graphId === document.graphIds[0]) throw new ConflictError(`${graphId} is the primary graph of document ${documentId}; delete the document instead`);
      const [entry] = await store.getEntries(documentId, [graphId]);
      const allowed =
        document.ownerId === caller.userId || entry?.sharedByUserId === caller.userId || (await graphs.roleIn(caller.userId, graphId)) === 'owner';
      if (!allowed) throw new ForbiddenError(`only the document's owner, the one who shared it, or the owner of ${graphId} may unshare it`);
      await store.unshare(document, graphId).catch(conflictOnRace('unsharing it'));
      if (largeGraphs) await removeFromLargeGraphs(largeGraphs, [graphId], documentId);
      return {
        documentId,
        graphIds: await visibleGraphIds(
          caller,
          document,
          document.graphIds.filter((id) => id !== graphId),
        ),
      };
    },

    async graphsOf(caller: Caller, documentId: string) {
      const document = await readable(caller, documentId);
      const graphIds = await visibleGraphIds(caller, document);
      const [entries, described] = await Promise.all([store.getEntries(documentId, graphIds), graphs.describe(graphIds)]);
      const entryOf = new Map(entries.map((entry) => [entry.graphId, entry]));
      return {
        documentId,
        graphs: graphIds.flatMap((graphId) => {
          const entry = entryOf.get(graphId);
          if (!entry) return [];
          return [
            {
              graphId,
              ...described.get(graphId)!,
              isPrimary: entry.isPrimary,
              sharedAt: entry.sharedAt,
              sharedByUserId: entry.sharedByUserId,
              shareReason: entry.shareReason,
            },
          ];
        }),
      };
    },

    /** Documents of a graph, most recently added first. */
    async list(caller: Caller, input: { graphId?: string; limit: number; offset: number }) {
      const graphId = input.graphId ?? personalGraphId(caller.userId);
      await graphs.requireMember(caller, graphId);
      const entries = (await store.listEntries(graphId)).sort((a, b) => b.sharedAt - a.sharedAt || a.documentId.localeCompare(b.documentId));
      const page = entries.slice(input.offset, input.offset + input.limit);
      const byId = new Map((await store.getDocuments(page.map((entry) => entry.documentId))).map((document) => [document.documentId, document]));
      const documents = page.flatMap((entry) => (byId.has(entry.documentId) ? [summary(byId.get(entry.documentId)!)] : []));
      return { documents, count: documents.length, total: entries.length, limit: input.limit, offset: input.offset };
    },

    search: deps.search,
    process: (documentId: string) => ingest.job(documentId),
  };
}

export type DocumentService = ReturnType<typeof createDocumentService>;
