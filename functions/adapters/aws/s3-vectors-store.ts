// Vectors of very large graphs on AWS: Amazon S3 Vectors, one index for all of them (cosine distance, 512
// dimensions), one vector per (graph, document, chunk) with the graph as filterable metadata, so a query reads only
// its graph. Calls are batched to the service's limits: 500 vectors per PutVectors and DeleteVectors, 100 keys per
// GetVectors.
import type { S3VectorsClientConfig } from '@aws-sdk/client-s3vectors';
import type { GraphVectorStore } from '#functions/documents/ports.js';
import { traced } from '#platform/tracer.js';
import { onFirstUse } from './on-first-use.js';

const perCall = 500;
const perGet = 100;
/** QueryVectors answers at most this many neighbours. */
export const maxTopK = 100;

const keyOf = (graphId: string, documentId: string, position: number) => `${graphId}|${documentId}|${position}`;

/** The index is DOCUMENT_VECTOR_INDEX_ARN's, which the composition root passes. */
export function createS3VectorsStore(clientConfig: S3VectorsClientConfig, index: { indexArn?: string }): GraphVectorStore {
  const s3Vectors = onFirstUse(async () => {
    const sdk = await import('@aws-sdk/client-s3vectors');
    return { sdk, client: traced(new sdk.S3VectorsClient(clientConfig)) };
  });
  const target = () => {
    const { indexArn } = index;
    if (!indexArn) throw new Error('DOCUMENT_VECTOR_INDEX_ARN must be set to use S3 Vectors');
    return { indexArn };
  };

  return {
    async put(graphId, documentId, vectors) {
      const { sdk, client } = await s3Vectors();
      for (let start = 0; start < vectors.length; start += perCall) {
        const batch = vectors.slice(start, start + perCall).map((vector, offset) => ({
          key: keyOf(graphId, documentId, start + offset),
          data: { float32: Array.from(vector) },
          metadata: { graphId, documentId, position: start + offset },
        }));
        await client.send(new sdk.PutVectorsCommand({ ...target(), vectors: batch }));
      }
    },

    async query(graphId, vector, topK) {
      const { sdk, client } = await s3Vectors();
      const { vectors = [] } = await client.send(
        new sdk.QueryVectorsCommand({
          ...target(),
          topK: Math.min(maxTopK, topK),
          queryVector: { float32: Array.from(vector) },
          filter: { graphId: { $eq: graphId } },
          returnMetadata: true,
          returnDistance: true,
        }),
      );
      return vectors.map((found) => {
        const metadata = found.metadata as { documentId: string; position: number };
        // Cosine distance is 1 - cosine similarity.
        return { documentId: metadata.documentId, position: Number(metadata.position), similarity: 1 - (found.distance ?? 1) };
      });
    },

    async similarities(graphId, vector, chunks) {
      const { sdk, client } = await s3Vectors();
      const found = [];
      for (let start = 0; start < chunks.length; start += perGet) {
        const keys = chunks.slice(start, start + perGet).map(({ documentId, position }) => keyOf(graphId, documentId, position));
        const { vectors = [] } = await client.send(new sdk.GetVectorsCommand({ ...target(), keys, returnData: true, returnMetadata: true }));
        for (const stored of vectors) {
          const metadata = stored.metadata as { documentId: string; position: number };
          const data = stored.data?.float32 ?? [];
          // Both are unit vectors: the dot product is the cosine.
          const similarity = data.reduce((sum, value, at) => sum + value * vector[at]!, 0);
          found.push({ documentId: metadata.documentId, position: Number(metadata.position), similarity });
        }
      }
      return found;
    },

    async remove(graphId, documentId, count) {
      const { sdk, client } = await s3Vectors();
      for (let start = 0; start < count; start += perCall) {
        const keys = Array.from({ length: Math.min(perCall, count - start) }, (_, offset) => keyOf(graphId, documentId, start + offset));
        await client.send(new sdk.DeleteVectorsCommand({ ...target(), keys }));
      }
    },
  };
}
