// The documents area's ports on a platform: blob store, large graphs' vectors, the embedder.
import { createBedrockEmbedder } from '#adapters/aws/bedrock-embedder.js';
import { createS3BlobStore } from '#adapters/aws/s3-blob-store.js';
import { createS3VectorsStore } from '#adapters/aws/s3-vectors-store.js';
import type { Embedder, GraphVectorStore } from '#functions/documents/ports.js';
import type { BlobStore } from '#platform/ports.js';
import { type Platform, perPlatform } from './platform.js';

export interface DocumentAdapters {
  blobStore: BlobStore;
  /**
   * Where graphs too large for one Lambda keep their vectors: S3 Vectors on AWS, for the functions granted its index
   * (lib/documents.ts). Locally none: one long-lived process loads any graph.
   */
  graphVectorStore: GraphVectorStore | undefined;
  /** One per platform: the local model loads once, lazily, on the first text. */
  embedder: Embedder;
}

export const documentAdapters: (platform: Platform) => DocumentAdapters = perPlatform(({ local, settings: { documents } }) => {
  if (process.env.PLATFORM_MODE === 'local') return { blobStore: local!.blobStore(), graphVectorStore: undefined, embedder: local!.embedder(documents) };
  return {
    blobStore: createS3BlobStore({}, documents.bucket),
    graphVectorStore: documents.vectorIndexArn ? createS3VectorsStore({}, { indexArn: documents.vectorIndexArn }) : undefined,
    embedder: createBedrockEmbedder({}, documents.embeddingModelId),
  };
});
