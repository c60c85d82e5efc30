// One graph's vectors in memory, scanned exactly: the rows live in WebAssembly memory and a SIMD loop
// (dot-scan.wat) scores all of them, about 10 ms for 100,000 vectors of 512 dimensions on one core, several times
// faster than the same loop in JavaScript. An approximate index would trade away recall for a latency the target
// does not need.
import { dotScanWasm } from './dot-scan-wasm.js';

export interface Hit {
  documentId: string;
  /** Row in the document's block: the chunk's position. */
  position: number;
  /** Raw cosine similarity. */
  similarity: number;
}

interface Block {
  documentId: string;
  /** Index of the block's first row among all rows. */
  firstRow: number;
  count: number;
}

interface DotScan {
  memory: { buffer: ArrayBuffer; grow(pages: number): number };
  scan(query: number, rows: number, count: number, stride: number, scores: number): void;
}

/** The part of the WebAssembly API used here: its types live in the DOM lib, which this Node project leaves out. */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: unknown };
}
const { Module, Instance } = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
const dotScanModule = new Module(dotScanWasm);
/** The scan consumes 16 floats per step: rows are padded with zeros to a multiple of it. */
const lanes = 16;
const pageBytes = 65_536;

/** Best first; equal scores fall back to document and position, so a search answers the same order every time. */
function ranksBefore(a: Hit, b: Hit): boolean {
  if (a.similarity !== b.similarity) return a.similarity > b.similarity;
  if (a.documentId !== b.documentId) return a.documentId < b.documentId;
  return a.position < b.position;
}

/**
 * Memory layout: the query (one padded row) at 0, then every block's rows back to back, then one score per row.
 * Removing a block moves the rows after it down, so the rows stay contiguous and one scan covers them all.
 */
export class VectorIndex {
  private readonly blocks: Block[] = [];
  private readonly byDocument = new Map<string, Block>();
  private readonly engine = new Instance(dotScanModule).exports as DotScan;
  /** Floats per stored row. */
  private readonly stride: number;
  private rows = 0;
  /** Rows scored by the last search, until the index changes. */
  private scoredRows = 0;

  constructor(readonly dims: number) {
    this.stride = Math.ceil(dims / lanes) * lanes;
  }

  get size(): number {
    return this.rows;
  }

  documentIds(): string[] {
    return [...this.byDocument.keys()];
  }

  /** `vectors` holds `count x dims` unit vectors, row i being chunk position i. */
  put(documentId: string, vectors: Float32Array): void {
    if (vectors.length % this.dims !== 0) throw new Error(`block of ${vectors.length} values is not a whole number of ${this.dims}-dimension vectors`);
    this.remove(documentId);
    const count = vectors.length / this.dims;
    this.reserve(this.rows + count);
    const memory = this.floats();
    const start = this.rowOffset(this.rows);
    if (this.stride === this.dims) memory.set(vectors, start);
    else {
      for (let row = 0; row < count; row++) {
        const at = start + row * this.stride;
        memory.set(vectors.subarray(row * this.dims, (row + 1) * this.dims), at);
        memory.fill(0, at + this.dims, at + this.stride);
      }
    }
    const block = { documentId, firstRow: this.rows, count };
    this.blocks.push(block);
    this.byDocument.set(documentId, block);
    this.rows += count;
    this.scoredRows = -1;
  }

  remove(documentId: string): void {
    const block = this.byDocument.get(documentId);
    if (!block) return;
    const at = this.blocks.indexOf(block);
    this.floats().copyWithin(this.rowOffset(block.firstRow), this.rowOffset(block.firstRow + block.count), this.rowOffset(this.rows));
    for (const later of this.blocks.slice(at + 1)) later.firstRow -= block.count;
    this.blocks.splice(at, 1);
    this.byDocument.delete(documentId);
    this.rows -= block.count;
    this.scoredRows = -1;
  }

  /** The best `limit` rows with similarity at least `minSimilarity`, best first. `query` must be a unit vector. */
  search(query: Float32Array, limit: number, minSimilarity: number): Hit[] {
    if (query.length !== this.dims) throw new Error(`query has ${query.length} dimensions, the index ${this.dims}`);
    const memory = this.floats();
    memory.set(query, 0);
    memory.fill(0, this.dims, this.stride);
    const scoresAt = this.rowOffset(this.rows);
    this.engine.scan(0, this.rowOffset(0) * 4, this.rows, this.stride, scoresAt * 4);
    this.scoredRows = this.rows;
    const scores = this.floats().subarray(scoresAt, scoresAt + this.rows);
    const top: Hit[] = [];
    let floor = minSimilarity;
    for (const { documentId, firstRow, count } of this.blocks) {
      for (let position = 0; position < count; position++) {
        const similarity = scores[firstRow + position]!;
        if (similarity < floor) continue;
        const hit = { documentId, position, similarity };
        let at = top.length;
        while (at > 0 && ranksBefore(hit, top[at - 1]!)) at--;
        if (at === limit) continue;
        top.splice(at, 0, hit);
        if (top.length > limit) top.pop();
        if (top.length === limit) floor = Math.max(minSimilarity, top[limit - 1]!.similarity);
      }
    }
    return top;
  }

  /** Raw cosine of a chunk and the last query searched; undefined for a chunk the index lacks. */
  similarityOf(documentId: string, position: number): number | undefined {
    const block = this.byDocument.get(documentId);
    if (!block || position < 0 || position >= block.count || this.scoredRows !== this.rows) return undefined;
    return this.floats()[this.rowOffset(this.rows) + block.firstRow + position];
  }

  /** Float offset of a row; row 0 follows the query row. */
  private rowOffset(row: number): number {
    return (row + 1) * this.stride;
  }

  private floats(): Float32Array {
    return new Float32Array(this.engine.memory.buffer);
  }

  /** Room for `rows` rows and their scores; memory only grows, as WebAssembly memory does. */
  private reserve(rows: number): void {
    const needed = (this.rowOffset(rows) + rows) * 4;
    const { memory } = this.engine;
    if (needed > memory.buffer.byteLength) memory.grow(Math.ceil((needed - memory.buffer.byteLength) / pageBytes));
  }
}
