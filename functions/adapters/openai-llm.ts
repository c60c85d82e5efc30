// Any OpenAI-compatible chat completions endpoint with tool calling (OpenAI, a gateway, a local server): POST
// `<baseUrl>/chat/completions`, through the outbound guard (deadline, response cap).
import type { ChatMessage, LanguageModel, ModelTurn } from '#functions/flows/ports.js';
import { AppError } from '#platform/errors.js';
import { outboundRequest, responseData } from '#platform/outbound.js';

export interface OpenAiSettings {
  baseUrl: string;
  /** Read on each request: on AWS it comes from a secret, fetched once by the caller's loader. */
  apiKey?: () => Promise<string>;
  model: string;
  pricing: LanguageModel['pricing'];
}

interface WireToolCall {
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface WireResponse {
  choices?: Array<{ message?: { content?: string | null; tool_calls?: WireToolCall[] } }>;
  usage?: { prompt_tokens?: number; completion_tokens?: number };
  error?: { message?: string };
}

function wireMessage(message: ChatMessage) {
  switch (message.role) {
    case 'assistant':
      return {
        role: 'assistant',
        content: message.content || null,
        ...(message.toolCalls.length > 0 && {
          tool_calls: message.toolCalls.map((call) => ({ id: call.id, type: 'function', function: { name: call.name, arguments: call.argumentsJson } })),
        }),
      };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
    default:
      return { role: message.role, content: message.content };
  }
}

export function createOpenAiModel(settings: OpenAiSettings): LanguageModel {
  const url = `${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  return {
    modelId: settings.model,
    pricing: settings.pricing,
    async complete({ messages, tools, timeoutMs }): Promise<ModelTurn> {
      const body = {
        model: settings.model,
        messages: messages.map(wireMessage),
        ...(tools.length > 0 && { tools: tools.map((tool) => ({ type: 'function', function: tool })), tool_choice: 'auto' }),
      };
      const apiKey = await settings.apiKey?.();
      const response = await outboundRequest({
        url,
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(apiKey && { authorization: `Bearer ${apiKey}` }) },
        body: JSON.stringify(body),
        timeoutMs,
      });
      const data = responseData(response) as WireResponse | string | null;
      if (response.status < 200 || response.status >= 300 || typeof data !== 'object' || data === null) {
        const reason = typeof data === 'object' && data?.error?.message ? `: ${data.error.message.slice(0, 300)}` : '';
        throw new AppError('LLM_ERROR', 502, `the language model answered HTTP ${response.status}${reason}`, { status: response.status });
      }
      const message = data.choices?.[0]?.message;
      if (!message) throw new AppError('LLM_ERROR', 502, 'the language model answered without a message');
      return {
        content: message.content ?? '',
        toolCalls: (message.tool_calls ?? []).map((call, index) => ({
          id: call.id ?? `call_${index}`,
          name: call.function?.name ?? '',
          argumentsJson: call.function?.arguments ?? '{}',
        })),
        usage: { inputTokens: data.usage?.prompt_tokens ?? 0, outputTokens: data.usage?.completion_tokens ?? 0 },
      };
    },
  };
}
