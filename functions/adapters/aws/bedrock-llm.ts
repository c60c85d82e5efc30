// Amazon Bedrock Converse with tool use: the same turn-by-turn contract as the OpenAI-compatible adapter. Tool
// results travel as `toolResult` blocks of a user message, as Converse wants them.
import type { BedrockRuntimeClientConfig, ContentBlock, Message } from '@aws-sdk/client-bedrock-runtime';
import type { ChatMessage, LanguageModel, ModelTurn } from '#functions/flows/ports.js';
import { AppError } from '#platform/errors.js';
import { traced } from '#platform/tracer.js';
import { onFirstUse } from './on-first-use.js';

type Json = Record<string, unknown>;

const parsedArguments = (text: string): Json => {
  try {
    const value: unknown = JSON.parse(text);
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Json) : {};
  } catch {
    return {};
  }
};

/** Converse's shape: system prompts apart, and consecutive tool results folded into one user turn. */
export function converseMessages(messages: ChatMessage[]): { system: Array<{ text: string }>; messages: Message[] } {
  const system: Array<{ text: string }> = [];
  const turns: Message[] = [];
  for (const message of messages) {
    if (message.role === 'system') system.push({ text: message.content });
    else if (message.role === 'user') turns.push({ role: 'user', content: [{ text: message.content }] });
    else if (message.role === 'assistant') {
      const content: ContentBlock[] = message.content ? [{ text: message.content }] : [];
      for (const call of message.toolCalls)
        content.push({ toolUse: { toolUseId: call.id, name: call.name, input: parsedArguments(call.argumentsJson) as never } });
      turns.push({ role: 'assistant', content });
    } else {
      const block: ContentBlock = { toolResult: { toolUseId: message.toolCallId, content: [{ text: message.content }] } };
      const last = turns.at(-1);
      if (last?.role === 'user' && last.content?.every((item) => item.toolResult)) last.content.push(block);
      else turns.push({ role: 'user', content: [block] });
    }
  }
  return { system, messages: turns };
}

export function createBedrockModel(
  settings: { modelId: string; pricing: LanguageModel['pricing'] },
  clientConfig: BedrockRuntimeClientConfig = {},
): LanguageModel {
  const bedrock = onFirstUse(async () => {
    const sdk = await import('@aws-sdk/client-bedrock-runtime');
    return { sdk, client: traced(new sdk.BedrockRuntimeClient(clientConfig)) };
  });
  return {
    modelId: settings.modelId,
    pricing: settings.pricing,
    async complete({ messages, tools, timeoutMs }): Promise<ModelTurn> {
      const { system, messages: turns } = converseMessages(messages);
      const { sdk, client } = await bedrock();
      let output;
      try {
        output = await client.send(
          new sdk.ConverseCommand({
            modelId: settings.modelId,
            messages: turns,
            ...(system.length > 0 && { system }),
            ...(tools.length > 0 && {
              toolConfig: {
                tools: tools.map((tool) => ({ toolSpec: { name: tool.name, description: tool.description, inputSchema: { json: tool.parameters as never } } })),
              },
            }),
          }),
          { abortSignal: AbortSignal.timeout(timeoutMs) },
        );
      } catch (error) {
        const { name, message } = error as Error;
        throw new AppError('LLM_ERROR', 502, `Bedrock Converse failed: ${name}: ${String(message).slice(0, 300)}`);
      }
      const content = output.output?.message?.content ?? [];
      return {
        content: content.flatMap((block) => (block.text ? [block.text] : [])).join(''),
        toolCalls: content.flatMap((block) =>
          block.toolUse
            ? [{ id: block.toolUse.toolUseId ?? '', name: block.toolUse.name ?? '', argumentsJson: JSON.stringify(block.toolUse.input ?? {}) }]
            : [],
        ),
        usage: { inputTokens: output.usage?.inputTokens ?? 0, outputTokens: output.usage?.outputTokens ?? 0 },
      };
    },
  };
}
