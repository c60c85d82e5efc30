// DynamoDB access for documents, their places in graphs, their chunks and their vectors.
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, queryAll, tableName } from '#platform/dynamo.js';
import { updateExpression } from '#platform/update-expression.js';
import { batchGet, batchWrite } from './batch.js';
import { type GraphChange, bumpVersion } from './graph-store.js';
import type { DocumentStatus } from './schemas.js';
import { decodeVectors, encodeVectors } from './vector-codec.js';

export interface StoredDocument {
  documentId: string;
  ownerId: string;
  filename: string;
  title: string;
  author: string | null;
  mimeType: string;
  sizeBytes: number;
  productTags: string[];
  status: DocumentStatus;
  uploadedAt: number;
  chunkCount: number;
  /** Graphs holding the document; the first is the primary one. */
  graphIds: string[];
  /** Bumped with every change of graphIds, for optimistic concurrency. */
  revision: number;
  blobKey: string;
  processingTimeMs: number | null;
  failureReason: string | null;
  embeddingModel: string | null;
  /** Distinct terms per chunk, summed over its chunks; set when processing completes. */
  termCount?: number;
}

export interface StoredEntry {
  graphId: string;
  documentId: string;
  isPrimary: boolean;
  sharedAt: number;
  sharedByUserId: string;
  shareReason: string | null;
}

export interface StoredChunk {
  documentId: string;
  position: number;
  chunkId: string;
  content: string;
  pageNumber: number | null;
  charOffset: number;
  /** Section heading; absent on chunks stored before headings were kept. */
  heading?: string | null;
}

export interface StoredVectors {
  model: string;
  dims: number;
  vectors: Float32Array;
}

/** Vectors per documentVectors item: 600 x 516 bytes stays well under DynamoDB's 400 KB item limit. */
const vectorsPerSegment = 600;

const documentsTable = () => tableName('documents');
const entriesTable = () => tableName('graphDocuments');
const chunksTable = () => tableName('documentChunks');
const vectorsTable = () => tableName('documentVectors');

/** What the document adds to each graph holding it. */
export const sizeOf = (document: Pick<StoredDocument, 'chunkCount' | 'termCount'>, sign = 1): GraphChange => ({
  chunks: sign * document.chunkCount,
  terms: sign * (document.termCount ?? 0),
});

const sameRevision = (revision: number) => ({ ConditionExpression: 'revision = :seen', ExpressionAttributeValues: { ':seen': revision } });

/** The document's graph list, written only over the revision it was read at. */
const setGraphIds = (document: StoredDocument, graphIds: string[]) => ({
  Update: {
    TableName: documentsTable(),
    Key: { documentId: document.documentId },
    UpdateExpression: 'SET graphIds = :graphIds, revision = :next',
    ...sameRevision(document.revision),
    ExpressionAttributeValues: { ':seen': document.revision, ':next': document.revision + 1, ':graphIds': graphIds },
  },
});

export function createDocumentStore() {
  const db = dynamo();
  const transact = (TransactItems: NonNullable<ConstructorParameters<typeof TransactWriteCommand>[0]['TransactItems']>) =>
    db.send(new TransactWriteCommand({ TransactItems }));

  return {
    createDocument: (document: StoredDocument, entry: StoredEntry) =>
      transact([
        { Put: { TableName: documentsTable(), Item: document, ConditionExpression: 'attribute_not_exists(documentId)' } },
        { Put: { TableName: entriesTable(), Item: entry } },
      ]),

    async getDocument(documentId: string): Promise<StoredDocument | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: documentsTable(), Key: { documentId }, ConsistentRead: true }));
      return Item as StoredDocument | undefined;
    },

    getDocuments: (documentIds: string[]) =>
      batchGet<StoredDocument>(
        documentsTable(),
        [...new Set(documentIds)].map((documentId) => ({ documentId })),
      ),

    /**
     * `expected` -> `next`; fails the condition if the document moved on meanwhile (or is gone). `graphs`, when given,
     * are the graphs it is in at `revision` (the condition checks that too), each bumped by `change`.
     */
    async setStatus(
      documentId: string,
      expected: DocumentStatus,
      next: Partial<StoredDocument> & { status: DocumentStatus },
      graphs?: { graphIds: string[]; revision: number; change: GraphChange },
    ) {
      const { expression, names, values } = updateExpression(next);
      await transact([
        {
          Update: {
            TableName: documentsTable(),
            Key: { documentId },
            UpdateExpression: expression,
            ConditionExpression: graphs ? '#status = :expected AND revision = :seen' : '#status = :expected',
            ExpressionAttributeNames: { ...names, '#status': 'status' },
            ExpressionAttributeValues: { ...values, ':expected': expected, ...(graphs && { ':seen': graphs.revision }) },
          },
        },
        ...(graphs?.graphIds ?? []).map((graphId) => bumpVersion(graphId, graphs!.change)),
      ]);
    },

    share: (document: StoredDocument, entry: StoredEntry) =>
      transact([
        setGraphIds(document, [...document.graphIds, entry.graphId]),
        { Put: { TableName: entriesTable(), Item: entry, ConditionExpression: 'attribute_not_exists(documentId)' } },
        bumpVersion(entry.graphId, sizeOf(document)),
      ]),

    unshare: (document: StoredDocument, graphId: string) =>
      transact([
        setGraphIds(
          document,
          document.graphIds.filter((id) => id !== graphId),
        ),
        { Delete: { TableName: entriesTable(), Key: { graphId, documentId: document.documentId } } },
        bumpVersion(graphId, sizeOf(document, -1)),
      ]),

    /** The record and every graph entry go together; chunks, vectors and the original follow with purgeContent. */
    remove: (document: StoredDocument) =>
      transact([
        { Delete: { TableName: documentsTable(), Key: { documentId: document.documentId }, ...sameRevision(document.revision) } },
        ...document.graphIds.flatMap((graphId) => [
          { Delete: { TableName: entriesTable(), Key: { graphId, documentId: document.documentId } } },
          bumpVersion(graphId, sizeOf(document, -1)),
        ]),
      ]),

    getEntries: (documentId: string, graphIds: string[]) =>
      batchGet<StoredEntry>(
        entriesTable(),
        graphIds.map((graphId) => ({ graphId, documentId })),
      ),

    listEntries: (graphId: string) =>
      queryAll<StoredEntry>({
        TableName: entriesTable(),
        KeyConditionExpression: 'graphId = :graphId',
        ExpressionAttributeValues: { ':graphId': graphId },
        ConsistentRead: true,
      }),

    putChunks: (chunks: StoredChunk[]) =>
      batchWrite(
        chunksTable(),
        chunks.map((Item) => ({ PutRequest: { Item: { ...Item } } })),
      ),

    listChunks: (documentId: string) =>
      queryAll<StoredChunk>({
        TableName: chunksTable(),
        KeyConditionExpression: 'documentId = :documentId',
        ExpressionAttributeValues: { ':documentId': documentId },
        ConsistentRead: true,
      }),

    getChunks: (keys: Array<{ documentId: string; position: number }>) => batchGet<StoredChunk>(chunksTable(), keys),

    async putVectors(documentId: string, model: string, dims: number, vectors: Float32Array[]): Promise<void> {
      const items = [];
      for (let segment = 0; segment * vectorsPerSegment < vectors.length; segment++) {
        const slice = vectors.slice(segment * vectorsPerSegment, (segment + 1) * vectorsPerSegment);
        items.push({ PutRequest: { Item: { documentId, segment, model, dims, count: slice.length, vectors: encodeVectors(slice, dims) } } });
      }
      await batchWrite(vectorsTable(), items, 2);
    },

    /** Every vector of the document in position order, or undefined before it has any. */
    async getVectors(documentId: string): Promise<StoredVectors | undefined> {
      const segments = await queryAll<{ segment: number; model: string; dims: number; vectors: Uint8Array }>({
        TableName: vectorsTable(),
        KeyConditionExpression: 'documentId = :documentId',
        ExpressionAttributeValues: { ':documentId': documentId },
      });
      if (segments.length === 0) return undefined;
      const { model, dims } = segments[0]!;
      const parts = segments.sort((a, b) => a.segment - b.segment).map((segment) => decodeVectors(segment.vectors, dims));
      const vectors = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
      parts.reduce((offset, part) => (vectors.set(part, offset), offset + part.length), 0);
      return { model, dims, vectors };
    },

    /** Deletes chunks and vectors; answers how many chunks there were. */
    async purgeContent(documentId: string): Promise<number> {
      const keyOf = { ':documentId': documentId };
      const [chunks, segments] = await Promise.all([
        queryAll<{ position: number }>({
          TableName: chunksTable(),
          KeyConditionExpression: 'documentId = :documentId',
          ExpressionAttributeValues: keyOf,
          ProjectionExpression: '#p',
          ExpressionAttributeNames: { '#p': 'position' },
        }),
        queryAll<{ segment: number }>({
          TableName: vectorsTable(),
          KeyConditionExpression: 'documentId = :documentId',
          ExpressionAttributeValues: keyOf,
          ProjectionExpression: '#s',
          ExpressionAttributeNames: { '#s': 'segment' },
        }),
      ]);
      await Promise.all([
        batchWrite(
          chunksTable(),
          chunks.map(({ position }) => ({ DeleteRequest: { Key: { documentId, position } } })),
        ),
        batchWrite(
          vectorsTable(),
          segments.map(({ segment }) => ({ DeleteRequest: { Key: { documentId, segment } } })),
        ),
      ]);
      return chunks.length;
    },
  };
}

export type DocumentStore = ReturnType<typeof createDocumentStore>;
