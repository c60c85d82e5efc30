// An LLM flow's run: the flow's instructions and its triggering event go to the model with the recommended tools;
// each tool call the model asks for runs with the owner's permissions and its result goes back, for at most
// `maxSteps` model turns. The result is the model's final answer; the cost is tokens plus what the tools cost.
import { AppError } from '#platform/errors.js';
import type { BoundTool, ChatMessage, LanguageModel } from './ports.js';

/** Model turns per execution: enough for a few rounds of tool use, bounded so a confused model stops. */
export const maxSteps = 8;
/** What one tool result may put back into the conversation. */
const maxToolResultChars = 16_000;

export interface AgentOutcome {
  ok: boolean;
  result: unknown;
  error?: { code: string; message: string };
  logs: string[];
  cost: number;
}

const systemPrompt = [
  "You run an automation on behalf of its owner. Follow the automation's instructions for the triggering event below.",
  "Use the provided tools when the instructions need an action or data; every tool acts with the owner's permissions.",
  'When you are done, answer with a short summary of what you did.',
].join(' ');

const clip = (text: string, limit: number) => (text.length > limit ? `${text.slice(0, limit)}... [truncated]` : text);

function parseArguments(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text || '{}');
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

export async function runAgent(input: {
  model: LanguageModel;
  prompt: string;
  trigger: unknown;
  tools: BoundTool[];
  unknownTools: string[];
  /** Milliseconds left before the execution's deadline, asked before each model turn. */
  remainingMs: () => number;
}): Promise<AgentOutcome> {
  const { model } = input;
  const logs: string[] = [`model ${model.modelId}; tools: ${input.tools.map((tool) => tool.definition.name).join(', ') || 'none'}`];
  if (input.unknownTools.length) logs.push(`recommended tools not found among your installed resources and scripts: ${input.unknownTools.join(', ')}`);
  const byName = new Map(input.tools.map((tool) => [tool.definition.name, tool]));
  const messages: ChatMessage[] = [
    { role: 'system', content: systemPrompt },
    { role: 'user', content: `Instructions:\n${input.prompt}\n\nTriggering event (JSON):\n${clip(JSON.stringify(input.trigger ?? null), 50_000)}` },
  ];
  let cost = 0;
  let toolCalls = 0;
  const charge = (usage: { inputTokens: number; outputTokens: number }) =>
    (cost += (usage.inputTokens * model.pricing.inputPerMTok + usage.outputTokens * model.pricing.outputPerMTok) / 1_000_000);

  for (let step = 1; step <= maxSteps; step++) {
    let turn;
    try {
      turn = await model.complete({ messages, tools: input.tools.map((tool) => tool.definition), timeoutMs: Math.max(1, input.remainingMs()) });
    } catch (error) {
      const code = error instanceof AppError ? error.code : 'LLM_ERROR';
      logs.push(`model turn ${step} failed: ${(error as Error).message}`);
      return { ok: false, result: null, error: { code, message: (error as Error).message }, logs, cost };
    }
    charge(turn.usage);
    logs.push(`model turn ${step}: ${turn.usage.inputTokens} input and ${turn.usage.outputTokens} output tokens, ${turn.toolCalls.length} tool call(s)`);
    if (turn.toolCalls.length === 0) return { ok: true, result: { output: turn.content, steps: step, toolCalls }, logs, cost };

    messages.push({ role: 'assistant', content: turn.content, toolCalls: turn.toolCalls });
    for (const call of turn.toolCalls) {
      toolCalls++;
      const tool = byName.get(call.name);
      const args = parseArguments(call.argumentsJson);
      let reply: unknown;
      if (!tool) reply = { error: { code: 'UNKNOWN_TOOL', message: `there is no tool named ${call.name}` } };
      else if (!args) reply = { error: { code: 'INVALID_ARGUMENTS', message: 'the arguments must be a JSON object' } };
      else {
        try {
          const { output, cost: toolCost } = await tool.invoke(args);
          cost += toolCost;
          reply = output;
        } catch (error) {
          reply = { error: { code: error instanceof AppError ? error.code : 'TOOL_FAILED', message: (error as Error).message } };
        }
      }
      logs.push(`tool ${call.name}: ${clip(JSON.stringify(reply), 300)}`);
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: clip(JSON.stringify(reply), maxToolResultChars) });
    }
  }
  return { ok: false, result: null, error: { code: 'LLM_STEP_LIMIT', message: `the model did not finish within ${maxSteps} turns` }, logs, cost };
}
