// The documents area's limits and defaults, in one place (the interface leaves most of them open).

/** Largest original accepted, through the upload-URL path; an inline upload is also bounded by the 6 MB request body. */
export const maxUploadBytes = 20 * 1024 * 1024;

/** Uploads up to this size are processed within the request; larger ones answer `processing` and finish in the background. */
export const syncMaxBytes = 64 * 1024;

/** Search defaults. */
export const defaultSearchLimit = 10;
export const defaultSearchThreshold = 0.7;

/** A document lives in at most this many graphs: delete and completion touch each of them in one transaction. */
export const maxGraphsPerDocument = 20;

/** Members of one group graph. */
export const maxGroupMembers = 500;

/** How long an upload URL stays valid. */
export const uploadUrlTtlSeconds = 15 * 60;

/**
 * Chunk sizes in characters. The local model (Universal Sentence Encoder lite) reads at most 128 tokens, about 550
 * characters of English, and ignores the rest: a chunk stays under that so all of it is searchable.
 */
export const chunking = { targetChars: 380, maxChars: 520, overlapChars: 120 } as const;

/** Formats the extractor reads, by MIME type. */
export const supportedMimeTypes = [
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'text/html',
  'text/markdown',
  'text/plain',
  'text/csv',
  'application/json',
] as const;
export type SupportedMimeType = (typeof supportedMimeTypes)[number];

/**
 * Caps on reading one original, so no file can take the process down or hold it (decompression bombs, deeply nested
 * HTML, huge texts). Extraction runs in a worker thread of its own (extract-worker.ts): `workerHeapMb` bounds its
 * JavaScript heap and `timeMs` its run; past either the worker is stopped and the document fails with the reason.
 * `inflatedBytes` bound what the compressed parts of a file may inflate to, checked before a parser reads them.
 * Sized so one extraction stays well inside the 2 GB of the functions that process documents on AWS.
 */
export const extraction = {
  workerHeapMb: 512,
  timeMs: 60_000,
  /** DOCX: every part of the zip, summed. Its XML costs the parser about ten times its size in memory. */
  docxInflatedBytes: 32 * 1024 * 1024,
  /** PDF: every zlib stream, summed (fonts, pages, images, object streams). */
  pdfInflatedBytes: 128 * 1024 * 1024,
  /** Characters of text one document yields: about 13,000 chunks. */
  textChars: 5_000_000,
  chunks: 10_000,
  /** Nesting of HTML elements; browsers themselves stop nesting at 512. */
  htmlDepth: 256,
  /** Extractions one process runs at once; more wait their turn. */
  concurrent: 2,
} as const;
