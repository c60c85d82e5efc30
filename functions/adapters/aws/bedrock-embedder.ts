// Embeddings on AWS: Amazon Bedrock Titan Text Embeddings v2, one InvokeModel per text (the model takes one input),
// a few in flight at once. 512 dimensions, the same as the local model, so an index holds the same bytes per chunk.
import pMap from 'p-map';
import type { BedrockRuntimeClientConfig } from '@aws-sdk/client-bedrock-runtime';
import { type Embedder, normalise } from '#functions/documents/ports.js';
import { traced } from '#platform/tracer.js';
import { onFirstUse } from './on-first-use.js';

const dims = 512;
const concurrency = 8;

/** `model`: EMBEDDING_MODEL_ID, which the `embeddings` grant sets; routes without it never embed. */
export function createBedrockEmbedder(clientConfig: BedrockRuntimeClientConfig, model: string | undefined): Embedder {
  const bedrock = onFirstUse(async () => {
    const sdk = await import('@aws-sdk/client-bedrock-runtime');
    return { sdk, client: traced(new sdk.BedrockRuntimeClient(clientConfig)) };
  });
  const modelIdOf = () => {
    if (!model) throw new Error('EMBEDDING_MODEL_ID is not set: the route needs `uses: [embeddings]`');
    return model;
  };

  async function embedOne(text: string): Promise<Float32Array> {
    const { sdk, client } = await bedrock();
    const response = await client.send(
      new sdk.InvokeModelCommand({
        modelId: modelIdOf(),
        contentType: 'application/json',
        accept: 'application/json',
        body: JSON.stringify({ inputText: text, dimensions: dims, normalize: true }),
      }),
    );
    const { embedding } = JSON.parse(new TextDecoder().decode(response.body)) as { embedding?: number[] };
    if (!embedding || embedding.length !== dims) throw new Error(`Bedrock ${modelIdOf()} answered no ${dims}-dimension embedding`);
    return normalise(Float32Array.from(embedding));
  }

  return {
    get modelId() {
      return modelIdOf();
    },
    dims,
    async embed(texts) {
      return pMap(texts, embedOne, { concurrency });
    },
  };
}
