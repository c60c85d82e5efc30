// The flows area's settings: the language model of LLM flows, parsed once per start by the composition root
// (functions/app/platform.ts).
import * as z from 'zod';
import { envNames } from '#platform/env-names.js';
import { envNumber } from '#platform/settings.js';

const price = envNumber(0).pipe(z.number().min(0));

export const flowSettingsSchema = z
  .object({
    [envNames.llmProvider]: z.string().optional(),
    [envNames.llmBaseUrl]: z.string().optional(),
    [envNames.llmApiKey]: z.string().optional(),
    [envNames.llmApiKeySecretArn]: z.string().optional(),
    [envNames.llmModel]: z.string().optional(),
    [envNames.llmInputUsdPerMTok]: price,
    [envNames.llmOutputUsdPerMTok]: price,
  })
  .transform((env) => ({
    llm: {
      provider: env[envNames.llmProvider],
      baseUrl: env[envNames.llmBaseUrl],
      apiKey: env[envNames.llmApiKey],
      apiKeySecretArn: env[envNames.llmApiKeySecretArn],
      model: env[envNames.llmModel],
      pricing: { inputPerMTok: env[envNames.llmInputUsdPerMTok], outputPerMTok: env[envNames.llmOutputUsdPerMTok] },
    },
  }));

export type LlmSettings = z.output<typeof flowSettingsSchema>['llm'];
