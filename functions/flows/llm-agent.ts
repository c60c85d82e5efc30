// An LLM flow's run: the flow's instructions and its triggering event go to the model with the recommended tools;
// each tool call the model asks for runs with the owner's permissions and its result goes back, for at most
// `maxSteps` model turns. The result is the model's final answer; the cost is tokens plus what the tools cost.
// Each model turn and each tool call is a step, so a run resumed after a tool call's approval replays them from the
// journal instead of asking the model or calling the tool again.
import { AppError } from '#platform/errors.js';
import { toolApprovalHours } from './model.js';
import type { AgentSteps, BoundTool, ChatMessage, LanguageModel, ModelTurn } from './ports.js';

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

/** Which tool calls wait for the owner's approval: the tools named, and paid calls priced above the threshold. */
export interface ApprovalRules {
  required: string[];
  aboveUsd?: number;
}

/** Steps that are not kept: a flow with no approval rules never waits, so it has nothing to resume. */
export const passingSteps: AgentSteps = {
  step: (_name, fn) => fn(),
  waitFor: () => Promise.reject(new Error('a flow without approval rules does not wait')),
};

type TurnStep = { turn: ModelTurn } | { failed: { code: string; message: string } };

const approvalOutcomeText = (outcome: { decision: string; by: string; comment: string | null }) =>
  outcome.decision === 'approve' ? undefined : `rejected by ${outcome.by}: ${outcome.comment ?? ''}`;

export async function runAgent(input: {
  model: LanguageModel;
  prompt: string;
  trigger: unknown;
  tools: BoundTool[];
  unknownTools: string[];
  /** Milliseconds left before the execution's deadline, asked before each model turn. */
  remainingMs: () => number;
  steps: AgentSteps;
  approval?: ApprovalRules;
  /** Names the flow in an approval's message. */
  flowTitle: string;
}): Promise<AgentOutcome> {
  const { model, steps, approval } = input;
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

  const needsApproval = (tool: BoundTool) =>
    approval !== undefined && (approval.required.includes(tool.definition.name) || (approval.aboveUsd !== undefined && (tool.price ?? 0) > approval.aboveUsd));

  /** The tool's answer; a call that needs approval first waits for it (the run suspends until the decision). */
  async function callTool(tool: BoundTool, args: Record<string, unknown>, id: string): Promise<{ reply: unknown; cost: number }> {
    if (needsApproval(tool)) {
      let outcome: { decision: string; by: string; comment: string | null };
      try {
        outcome = await steps.waitFor('approval', `approval ${id}`, {
          message: clip(`The flow "${input.flowTitle}" asks to call the tool ${tool.definition.name} with the arguments ${JSON.stringify(args)}`, 4000),
          timeout: { hours: toolApprovalHours },
        });
      } catch (error) {
        if ((error as { code?: string }).code !== 'TIMEOUT') throw error;
        return { reply: 'approval timed out', cost: 0 };
      }
      const refused = approvalOutcomeText(outcome);
      if (refused) return { reply: refused, cost: 0 };
    }
    return steps.step(`tool ${id}`, async () => {
      try {
        const { output, cost } = await tool.invoke(args);
        return { reply: output, cost };
      } catch (error) {
        return { reply: { error: { code: error instanceof AppError ? error.code : 'TOOL_FAILED', message: (error as Error).message } }, cost: 0 };
      }
    });
  }

  for (let step = 1; step <= maxSteps; step++) {
    const answer = await steps.step<TurnStep>(`turn ${step}`, async () => {
      try {
        return { turn: await model.complete({ messages, tools: input.tools.map((tool) => tool.definition), timeoutMs: Math.max(1, input.remainingMs()) }) };
      } catch (error) {
        return { failed: { code: error instanceof AppError ? error.code : 'LLM_ERROR', message: (error as Error).message } };
      }
    });
    if ('failed' in answer) {
      logs.push(`model turn ${step} failed: ${answer.failed.message}`);
      return { ok: false, result: null, error: answer.failed, logs, cost };
    }
    const { turn } = answer;
    charge(turn.usage);
    logs.push(`model turn ${step}: ${turn.usage.inputTokens} input and ${turn.usage.outputTokens} output tokens, ${turn.toolCalls.length} tool call(s)`);
    if (turn.toolCalls.length === 0) return { ok: true, result: { output: turn.content, steps: step, toolCalls }, logs, cost };

    messages.push({ role: 'assistant', content: turn.content, toolCalls: turn.toolCalls });
    for (const [index, call] of turn.toolCalls.entries()) {
      toolCalls++;
      const tool = byName.get(call.name);
      const args = parseArguments(call.argumentsJson);
      let reply: unknown;
      if (!tool) reply = { error: { code: 'UNKNOWN_TOOL', message: `there is no tool named ${call.name}` } };
      else if (!args) reply = { error: { code: 'INVALID_ARGUMENTS', message: 'the arguments must be a JSON object' } };
      else {
        const called = await callTool(tool, args, `${step}.${index + 1} ${call.name}`);
        cost += called.cost;
        reply = called.reply;
      }
      // An approval's refusal or timeout reaches the model as the plain sentence.
      const content = typeof reply === 'string' ? reply : JSON.stringify(reply);
      logs.push(`tool ${call.name}: ${clip(content, 300)}`);
      messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content: clip(content, maxToolResultChars) });
    }
  }
  return { ok: false, result: null, error: { code: 'LLM_STEP_LIMIT', message: `the model did not finish within ${maxSteps} turns` }, logs, cost };
}
