import { settings } from '#platform/settings.js';
import type { Embedder } from '#functions/documents/ports.js';
import { createBedrockEmbedder } from './aws/bedrock-embedder.js';
import { createUseEmbedder } from './local/use-embedder.js';

let embedder: Embedder | undefined;

/** One embedder per process: the local model loads once, lazily, on the first text. */
export const sharedEmbedder = (): Embedder => (embedder ??= settings.mode === 'local' ? createUseEmbedder() : createBedrockEmbedder());
