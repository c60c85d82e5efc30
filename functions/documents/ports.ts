// What the documents area needs from the outside world; functions/adapters/{aws,local} implement each.
import type { BackgroundRuns } from '#platform/ports.js';

/** The accounts area, asked only whether a user a group's owner adds exists. */
export interface AccountDirectory {
  exists(userId: string): Promise<boolean>;
}

export interface Embedder {
  /** Names the model, and so the calibration of its similarities (calibration.ts). */
  readonly modelId: string;
  readonly dims: number;
  /** One unit vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** Scales `vector` to unit length in place; a zero vector stays zero. An Embedder applies it to answer unit vectors. */
export function normalise(vector: Float32Array): Float32Array {
  let sum = 0;
  for (let i = 0; i < vector.length; i++) sum += vector[i]! * vector[i]!;
  const norm = Math.sqrt(sum);
  if (norm > 0) for (let i = 0; i < vector.length; i++) vector[i]! /= norm;
  return vector;
}

/** Originals of uploaded documents are kept in the kernel's generic blob store. */
export type { BlobStore, UploadTarget } from '#platform/ports.js';

/** The processing of a document outside the request that accepted it: a job of the kernel's background runs. */
export interface DocumentJob {
  documentId: string;
}
export type DocumentJobs = BackgroundRuns<DocumentJob, unknown>;

/**
 * Vectors of graphs too large to scan in one Lambda (docs/data-model.md), kept in a vector index and queried by
 * graph: each (graph, document) pair holds its own copy, so a query filters on one graph only.
 */
export interface GraphVectorStore {
  put(graphId: string, documentId: string, vectors: Float32Array[]): Promise<void>;
  /** The `topK` nearest chunks of the graph, best first, with their cosine similarity. */
  query(graphId: string, vector: Float32Array, topK: number): Promise<Array<{ documentId: string; position: number; similarity: number }>>;
  /** Cosine similarities of `vector` with the given chunks of the graph; chunks it does not hold are left out. */
  similarities(
    graphId: string,
    vector: Float32Array,
    chunks: Array<{ documentId: string; position: number }>,
  ): Promise<Array<{ documentId: string; position: number; similarity: number }>>;
  /** Removes the document's `count` vectors from the graph. */
  remove(graphId: string, documentId: string, count: number): Promise<void>;
}
