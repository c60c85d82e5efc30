import * as z from 'zod';
import { OpaqueId, pagination } from '#platform/schemas.js';
import { defaultSearchLimit, defaultSearchThreshold, maxUploadBytes, supportedMimeTypes } from './limits.js';

/** Graph ids hold a colon, which arrives percent-encoded in a path (`user%3Ausr_...`): decode before checking. */
const decoded = (value: unknown) => {
  if (typeof value !== 'string' || !value.includes('%')) return value;
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/** The interface's form `user:<id>` or `group:<id>`; a well-formed id of a graph the caller is not in is NOT_FOUND from the service. */
export const GraphId = z.preprocess(decoded, z.string().regex(/^(user|group):[^\s/]{1,190}$/, 'must be user:<userId> or group:<groupId>'));
export const DocumentId = OpaqueId;
export const UserId = OpaqueId;

const Filename = z
  .string()
  .trim()
  .min(1)
  .max(255)
  .refine((name) => !/[/\\\p{Cc}]/u.test(name), 'must be a file name without path separators or control characters');

/** `text/plain; charset=utf-8` counts as `text/plain`. */
const MimeType = z.preprocess(
  (value) => (typeof value === 'string' ? value.split(';')[0]!.trim().toLowerCase() : value),
  z.enum(supportedMimeTypes, { error: `must be one of ${supportedMimeTypes.join(', ')}` }),
);

const documentFields = {
  filename: Filename,
  mimeType: MimeType,
  title: z.string().trim().min(1).max(300).optional(),
  author: z.string().trim().min(1).max(200).optional(),
  productTags: z.array(z.string().trim().min(1).max(64)).max(20).default([]),
  graphId: GraphId.optional(),
};

const maxUploadMb = maxUploadBytes / 1024 / 1024;

export const UploadInput = z.strictObject({
  file: z
    .string()
    .min(1, 'must not be empty')
    .regex(/^[A-Za-z0-9+/_-]+={0,2}$/, 'must be base64 without line breaks')
    .refine((file) => Math.floor((file.length * 3) / 4) <= maxUploadBytes, `decodes to more than ${maxUploadMb} MB`),
  ...documentFields,
});
export type UploadInput = z.output<typeof UploadInput>;

export const UploadUrlInput = z.strictObject({
  size: z.number().int().min(1).max(maxUploadBytes, `at most ${maxUploadBytes} bytes (${maxUploadMb} MB)`),
  ...documentFields,
});
export type UploadUrlInput = z.output<typeof UploadUrlInput>;

export const DocumentIdInput = z.object({ documentId: DocumentId });

export const ShareInput = z.strictObject({
  documentId: DocumentId,
  targetGraphId: GraphId,
  shareReason: z.string().trim().min(1).max(500).optional(),
});

export const UnshareInput = z.object({ documentId: DocumentId, graphId: GraphId });

export const SearchInput = z.strictObject({
  query: z.string().trim().min(1).max(2000),
  graphId: GraphId.optional(),
  limit: z.number().int().min(1).max(100).default(defaultSearchLimit),
  threshold: z.number().min(0).max(1).default(defaultSearchThreshold),
});
export type SearchInput = z.output<typeof SearchInput>;

export const ListDocumentsInput = z.object({ graphId: GraphId.optional(), ...pagination(10) });

export const CreateGraphInput = z.strictObject({ name: z.string().trim().min(1).max(100) });
export const GraphIdInput = z.object({ graphId: GraphId });
export const AddMemberInput = z.strictObject({ graphId: GraphId, userId: UserId });
export const RemoveMemberInput = z.object({ graphId: GraphId, userId: UserId });

// Records, as answered.

export const DocumentStatus = z.enum(['uploading', 'processing', 'completed', 'failed']);
export type DocumentStatus = z.infer<typeof DocumentStatus>;

const EpochMs = z.number().int();

export const DocumentSummary = z.object({
  documentId: z.string(),
  filename: z.string(),
  title: z.string(),
  author: z.string().nullable(),
  chunkCount: z.number().int(),
  uploadedAt: EpochMs,
  productTags: z.array(z.string()),
  status: DocumentStatus,
});

export const Chunk = z.object({
  chunkId: z.string(),
  documentId: z.string(),
  content: z.string(),
  position: z.number().int(),
  pageNumber: z.number().int().nullable(),
  charOffset: z.number().int(),
  /** The heading of the section the chunk is in, null before the first heading. */
  heading: z.string().nullable(),
});

export const Uploaded = z.object({
  documentId: z.string(),
  status: DocumentStatus,
  chunkCount: z.number().int(),
  processingTimeMs: z.number().int(),
  graphIds: z.array(z.string()),
  failureReason: z.string().optional(),
});

export const UploadTicket = z.object({
  documentId: z.string(),
  status: DocumentStatus,
  uploadUrl: z.string(),
  method: z.literal('PUT'),
  headers: z.record(z.string(), z.string()),
  expiresAt: EpochMs,
  maxBytes: z.number().int(),
});

export const DocumentWithChunks = z.object({
  document: DocumentSummary.extend({ mimeType: z.string(), sizeBytes: z.number().int(), graphIds: z.array(z.string()) }),
  chunks: z.array(Chunk.omit({ documentId: true, charOffset: true })),
});

export const StatusOutput = z.object({
  documentId: z.string(),
  status: DocumentStatus,
  chunkCount: z.number().int(),
  uploadedAt: EpochMs,
  processingTimeMs: z.number().int().nullable(),
  failureReason: z.string().nullable(),
});

export const ChunkList = z.object({ chunks: z.array(Chunk), count: z.number().int() });
export const Deleted = z.object({ documentId: z.string(), chunksDeleted: z.number().int() });

export const Shared = z.object({
  documentId: z.string(),
  graphIds: z.array(z.string()),
  shareEvent: z.object({ sharedAt: EpochMs, sharedBy: z.string(), reason: z.string().nullable() }),
});
export const GraphIdsOutput = z.object({ documentId: z.string(), graphIds: z.array(z.string()) });

export const GraphType = z.enum(['personal', 'group']);
export type GraphType = z.infer<typeof GraphType>;
export const Role = z.enum(['owner', 'member']);
export type Role = z.infer<typeof Role>;

export const GraphEntry = z.object({
  graphId: z.string(),
  graphType: GraphType,
  graphName: z.string(),
  isPrimary: z.boolean(),
  sharedAt: EpochMs,
  sharedByUserId: z.string(),
  shareReason: z.string().nullable(),
});
export const DocumentGraphs = z.object({ documentId: z.string(), graphs: z.array(GraphEntry) });

export const SearchResult = z.object({
  chunkId: z.string(),
  documentId: z.string(),
  documentName: z.string(),
  content: z.string(),
  score: z.number(),
  position: z.number().int(),
  pageNumber: z.number().int().nullable(),
  heading: z.string().nullable(),
});
export const SearchOutput = z.object({ results: z.array(SearchResult), count: z.number().int() });

export const DocumentList = z.object({
  documents: z.array(DocumentSummary),
  count: z.number().int(),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});

export const Graph = z.object({
  graphId: z.string(),
  graphType: GraphType,
  graphName: z.string(),
  ownerId: z.string(),
  role: Role,
  createdAt: EpochMs.nullable(),
});
export const GraphMember = z.object({ userId: z.string(), role: Role, addedAt: EpochMs });
export const GraphDetail = Graph.extend({ members: z.array(GraphMember) });
export const GraphList = z.object({ graphs: z.array(Graph), count: z.number().int() });
