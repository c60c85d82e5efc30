import { type RouteSpec, defineRoutes } from '#platform/route.js';
import { Message } from '#platform/schemas.js';
import {
  AddMemberInput, ChunkList, CreateGraphInput, Deleted, DocumentGraphs, DocumentIdInput, DocumentList, DocumentWithChunks, Graph,
  GraphDetail, GraphIdInput, GraphIdsOutput, GraphList, GraphMember, ListDocumentsInput, RemoveMemberInput, SearchInput, SearchOutput,
  ShareInput, Shared, StatusOutput, UnshareInput, UploadInput, UploadTicket, UploadUrlInput, Uploaded,
} from './schemas.js';

const readDocument = { documents: 'read', documentChunks: 'read', graphMembers: 'read' } as const;
/**
 * Upload and completeUpload also run the processing job (synchronously, or as the function invoked asynchronously),
 * which rewrites BM25 snapshots of up to `LARGE_GRAPH_CHUNKS` chunks: as much memory as the search function loading one.
 */
const processing: Pick<RouteSpec, 'tables' | 'uses' | 'timeoutSeconds' | 'memoryMb'> = {
  tables: { documents: 'write', graphDocuments: 'write', documentChunks: 'write', documentVectors: 'write', graphs: 'write', graphMembers: 'read', graphTerms: 'write' },
  uses: ['documentsBucket', 'embeddings', 'selfInvoke', 'documentVectors'],
  timeoutSeconds: 900,
  memoryMb: 2048,
};

export const documentRoutes = defineRoutes('documents', {
  uploadDocument: {
    method: 'POST', path: '/api/sdk/v1/documents/upload', auth: 'apiKey', summary: 'Upload a document (base64) into a graph; small files are processed before the answer',
    input: UploadInput, output: Uploaded, successStatus: 201, ...processing,
  },
  createUploadUrl: {
    method: 'POST', path: '/api/sdk/v1/documents/upload-url', auth: 'apiKey', summary: 'Start an upload of a file too large for a JSON body: answers a URL to PUT it to',
    input: UploadUrlInput, output: UploadTicket, successStatus: 201,
    tables: { documents: 'write', graphDocuments: 'write', graphMembers: 'read' }, uses: ['documentsBucket'],
  },
  completeUpload: {
    method: 'POST', path: '/api/sdk/v1/documents/{documentId}/complete', auth: 'apiKey', summary: 'Process a document whose file was PUT to its upload URL',
    input: DocumentIdInput, output: Uploaded, ...processing,
  },
  getDocument: {
    method: 'GET', path: '/api/sdk/v1/documents/{documentId}', auth: 'apiKey', summary: 'A document and its chunks',
    input: DocumentIdInput, output: DocumentWithChunks, tables: readDocument,
  },
  getDocumentStatus: {
    method: 'GET', path: '/api/sdk/v1/documents/{documentId}/status', auth: 'apiKey', summary: 'Processing status of a document',
    input: DocumentIdInput, output: StatusOutput, tables: { documents: 'read', graphMembers: 'read' },
  },
  listDocumentChunks: {
    method: 'GET', path: '/api/sdk/v1/documents/{documentId}/chunks', auth: 'apiKey', summary: 'Chunks of a document with their character offsets',
    input: DocumentIdInput, output: ChunkList, tables: readDocument,
  },
  deleteDocument: {
    method: 'DELETE', path: '/api/sdk/v1/documents/{documentId}', auth: 'apiKey', summary: 'Delete a document from every graph, with its chunks (irreversible)',
    input: DocumentIdInput, output: Deleted,
    tables: { documents: 'write', graphDocuments: 'write', documentChunks: 'write', documentVectors: 'write', graphs: 'write', graphMembers: 'read', graphTerms: 'write' },
    uses: ['documentsBucket', 'documentVectors'],
  },
  shareDocument: {
    method: 'POST', path: '/api/sdk/v1/documents/{documentId}/share', auth: 'apiKey', summary: 'Add a document to another graph',
    // Also runs the job that adds the document to the target graph's BM25 snapshot (ingest.ts `job`).
    input: ShareInput, output: Shared, uses: ['documentVectors', 'documentsBucket', 'selfInvoke'], timeoutSeconds: 900, memoryMb: 2048,
    tables: { documents: 'write', graphDocuments: 'write', graphs: 'write', graphMembers: 'read', documentChunks: 'read', documentVectors: 'read', graphTerms: 'write' },
  },
  unshareDocument: {
    method: 'DELETE', path: '/api/sdk/v1/documents/{documentId}/share/{graphId}', auth: 'apiKey', summary: 'Take a document out of a graph other than its primary one',
    input: UnshareInput, output: GraphIdsOutput, uses: ['documentVectors'],
    tables: { documents: 'write', graphDocuments: 'write', graphs: 'write', graphMembers: 'read', documentChunks: 'read', graphTerms: 'write' },
  },
  listDocumentGraphs: {
    method: 'GET', path: '/api/sdk/v1/documents/{documentId}/graphs', auth: 'apiKey', summary: 'The graphs a document is in',
    input: DocumentIdInput, output: DocumentGraphs, tables: { documents: 'read', graphDocuments: 'read', graphs: 'read', graphMembers: 'read' },
  },
  searchDocuments: {
    method: 'POST', path: '/api/sdk/v1/documents/search', auth: 'apiKey', summary: 'Semantic search over the chunks of one graph',
    input: SearchInput, output: SearchOutput, uses: ['embeddings', 'documentVectors', 'documentsBucket'], memoryMb: 2048,
    tables: { documents: 'read', graphDocuments: 'read', documentChunks: 'read', documentVectors: 'read', graphs: 'read', graphMembers: 'read', graphTerms: 'read' },
  },
  listDocuments: {
    method: 'GET', path: '/api/sdk/v1/documents', auth: 'apiKey', summary: 'Documents of a graph, most recently added first',
    input: ListDocumentsInput, output: DocumentList, tables: { documents: 'read', graphDocuments: 'read', graphMembers: 'read' },
  },
  createGraph: {
    method: 'POST', path: '/api/sdk/v1/graphs', auth: 'apiKey', summary: 'Create a group graph; the caller becomes its owner',
    input: CreateGraphInput, output: Graph, successStatus: 201, tables: { graphs: 'write', graphMembers: 'write' },
  },
  listGraphs: {
    method: 'GET', path: '/api/sdk/v1/graphs', auth: 'apiKey', summary: "The caller's personal graph and group graphs",
    output: GraphList, tables: { graphs: 'read', graphMembers: 'read' },
  },
  getGraph: {
    method: 'GET', path: '/api/sdk/v1/graphs/{graphId}', auth: 'apiKey', summary: 'A graph and its members (members only)',
    input: GraphIdInput, output: GraphDetail, tables: { graphs: 'read', graphMembers: 'read' },
  },
  addGraphMember: {
    method: 'POST', path: '/api/sdk/v1/graphs/{graphId}/members', auth: 'apiKey', summary: 'Add a user to a group graph (its owner only)',
    input: AddMemberInput, output: GraphMember, successStatus: 201, tables: { graphs: 'read', graphMembers: 'write', users: 'read' },
  },
  removeGraphMember: {
    method: 'DELETE', path: '/api/sdk/v1/graphs/{graphId}/members/{userId}', auth: 'apiKey', summary: 'Remove a member from a group graph (its owner, or the member leaving)',
    input: RemoveMemberInput, output: Message, tables: { graphs: 'read', graphMembers: 'write' },
  },
});
