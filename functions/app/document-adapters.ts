// The documents area's ports in this process's mode: blob store, large graphs' vectors, the embedder.
import { createBedrockEmbedder } from '#adapters/aws/bedrock-embedder.js';
import { createS3BlobStore } from '#adapters/aws/s3-blob-store.js';
import { createS3VectorsStore } from '#adapters/aws/s3-vectors-store.js';
import type { Embedder, GraphVectorStore } from '#functions/documents/ports.js';
import { envNames } from '#platform/env-names.js';
import type { BlobStore } from '#platform/ports.js';
import { readEnv } from '#platform/settings.js';
import { localAdapters, platformSettings } from './platform.js';

export const documentBlobStore = (): BlobStore =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().blobStore() : createS3BlobStore({}, readEnv(envNames.documentsBucket));

/**
 * Where graphs too large for one Lambda keep their vectors: S3 Vectors on AWS, for the functions granted its index
 * (lib/documents.ts). Locally none: one long-lived process loads any graph.
 */
export const graphVectorStore = (): GraphVectorStore | undefined =>
  process.env.PLATFORM_MODE !== 'local' && readEnv(envNames.documentVectorIndexArn)
    ? createS3VectorsStore({}, { indexArn: readEnv(envNames.documentVectorIndexArn) })
    : undefined;

let bedrockEmbedder: Embedder | undefined;
/** One embedder per process: the local model loads once, lazily, on the first text. */
export const sharedEmbedder = (): Embedder =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().embedder(platformSettings().documents) : (bedrockEmbedder ??= createBedrockEmbedder());
