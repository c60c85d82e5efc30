// What the documents area needs from the outside world; functions/adapters/{aws,local} implement each.

export interface Embedder {
  /** Names the model, and so the calibration of its similarities (calibration.ts). */
  readonly modelId: string;
  readonly dims: number;
  /** One unit vector per text, in order. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

export interface UploadTarget {
  url: string;
  method: 'PUT';
  /** Headers the PUT must carry exactly, since they are part of the signature. */
  headers: Record<string, string>;
}

/** Originals of uploaded documents. */
export interface BlobStore {
  put(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** Undefined when nothing is stored under `key`. */
  get(key: string): Promise<Uint8Array | undefined>;
  sizeOf(key: string): Promise<number | undefined>;
  delete(key: string): Promise<void>;
  /** A URL the client PUTs exactly `bytes` bytes of `contentType` to, valid for `expiresInSeconds`. */
  uploadTarget(key: string, contentType: string, bytes: number, expiresInSeconds: number): Promise<UploadTarget>;
}

/** Runs the processing of a document outside the request that accepted it. */
export interface DocumentJobs {
  enqueue(documentId: string): Promise<void>;
}
