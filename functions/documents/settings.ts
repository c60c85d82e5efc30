// The documents area's settings, parsed once per start by the composition root (functions/app/platform.ts).
import * as z from 'zod';
import { envNames } from '#platform/env-names.js';
import { envNumber } from '#platform/settings.js';

export const documentSettingsSchema = z
  .object({
    [envNames.searchCacheVectors]: envNumber(500_000),
    [envNames.largeGraphChunks]: envNumber(100_000),
    [envNames.searchIndexWaitSeconds]: envNumber(20),
    [envNames.embeddingWorkers]: z.coerce.number().optional(),
    [envNames.documentsBucket]: z.string().optional(),
    [envNames.documentVectorIndexArn]: z.string().optional(),
    [envNames.embeddingModelId]: z.string().optional(),
  })
  .transform((env) => ({
    /** Vectors one process keeps warm across graphs: 500,000 x 512 float32 is about 1 GB. */
    maxCachedVectors: env[envNames.searchCacheVectors],
    /** Chunks past which a graph is searched outside the process, where large graphs are kept there (docs/data-model.md). */
    largeGraphChunks: env[envNames.largeGraphChunks],
    /**
     * How long a search waits for a graph's index to load before answering TIMEOUT while the load goes on (0: never
     * waits for a cold load). Under the search function's 29 s, leaving time to embed the question and read the chunks.
     */
    searchIndexWaitMs: env[envNames.searchIndexWaitSeconds] * 1000,
    /** Local embedding worker threads; unset, one per core. */
    embeddingWorkers: env[envNames.embeddingWorkers],
    /** The originals' bucket on AWS, granted to the functions that read or write documents. */
    bucket: env[envNames.documentsBucket],
    /** The S3 Vectors index of large graphs, granted to the functions that search or index them (lib/documents.ts). */
    vectorIndexArn: env[envNames.documentVectorIndexArn] || undefined,
    /** The Bedrock embedding model on AWS, granted with the `embeddings` capability. */
    embeddingModelId: env[envNames.embeddingModelId],
  }));

export type DocumentSettings = z.output<typeof documentSettingsSchema>;
