// Vectors at rest: unit vectors quantised to int8 with one float32 scale each (dims + 4 bytes instead of 4 x dims).
// The cosine error this adds is about 0.002, far below what separates a relevant passage from an unrelated one.
import { normalise } from './ports.js';

const bytesPer = (dims: number) => 4 + dims;

/** Packs vectors of `dims` each into one buffer: per vector a float32 scale, then dims signed bytes. */
export function encodeVectors(vectors: Float32Array[], dims: number): Uint8Array {
  const out = new Uint8Array(vectors.length * bytesPer(dims));
  const view = new DataView(out.buffer);
  vectors.forEach((vector, row) => {
    if (vector.length !== dims) throw new Error(`vector ${row} has ${vector.length} dimensions, expected ${dims}`);
    let max = 0;
    for (let i = 0; i < dims; i++) max = Math.max(max, Math.abs(vector[i]!));
    const scale = max / 127;
    const base = row * bytesPer(dims);
    view.setFloat32(base, scale, true);
    for (let i = 0; i < dims; i++) view.setInt8(base + 4 + i, scale > 0 ? Math.round(vector[i]! / scale) : 0);
  });
  return out;
}

/** Unpacks into one contiguous, re-normalised Float32Array of `count x dims`. */
export function decodeVectors(bytes: Uint8Array, dims: number): Float32Array {
  const count = bytes.length / bytesPer(dims);
  if (!Number.isInteger(count)) throw new Error(`vector blob of ${bytes.length} bytes does not hold whole ${dims}-dimension vectors`);
  const out = new Float32Array(count * dims);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let row = 0; row < count; row++) {
    const base = row * bytesPer(dims);
    const scale = view.getFloat32(base, true);
    for (let i = 0; i < dims; i++) out[row * dims + i] = view.getInt8(base + 4 + i) * scale;
    normalise(out.subarray(row * dims, (row + 1) * dims));
  }
  return out;
}
