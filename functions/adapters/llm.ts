// The language model of LLM flows, from the flows' live settings (read on each call, so an operator or a test can
// change it):
// - OpenAI-compatible: LLM_BASE_URL (e.g. https://api.openai.com/v1), LLM_MODEL, optional LLM_API_KEY (or, on AWS,
//   LLM_API_KEY_SECRET_ARN: a Secrets Manager secret holding the key, which the stack lets the function read);
// - Amazon Bedrock Converse: LLM_PROVIDER=bedrock and LLM_MODEL (a model or inference profile id);
// - optional prices LLM_INPUT_USD_PER_MTOK and LLM_OUTPUT_USD_PER_MTOK for the cost of executions.
// Nothing configured: undefined, and the execution fails with LLM_NOT_CONFIGURED.
import type { LanguageModel } from '#functions/flows/ports.js';
import { createBedrockModel } from './aws/bedrock-llm.js';
import { secretString } from './aws/secret-string.js';
import type { LlmSettings } from '#functions/flows/settings.js';
import { createOpenAiModel } from './openai-llm.js';

let cached: { key: string; model: LanguageModel | undefined } | undefined;

export function languageModel(settings: LlmSettings): LanguageModel | undefined {
  const { provider, baseUrl, apiKey: plainKey, apiKeySecretArn: keySecretArn, model, pricing } = settings;
  const key = JSON.stringify([provider, baseUrl, plainKey, keySecretArn, model, pricing]);
  if (cached?.key === key) return cached.model;
  let chosen: LanguageModel | undefined;
  if (model && provider === 'bedrock') chosen = createBedrockModel({ modelId: model, pricing });
  else if (model && baseUrl && (provider === undefined || provider === 'openai')) {
    const apiKey = plainKey ? async () => plainKey : keySecretArn ? () => secretString(keySecretArn) : undefined;
    chosen = createOpenAiModel({ baseUrl, apiKey, model, pricing });
  }
  cached = { key, model: chosen };
  return chosen;
}
