// The agent loop's approval rule with fakes of its ports: which tool calls wait, and what the model hears when the
// wait ends without an approval.
import { describe, expect, it } from 'vitest';
import { runAgent } from '../../functions/flows/llm-agent.js';
import type { AgentSteps, BoundTool, ChatMessage, LanguageModel } from '../../functions/flows/ports.js';

function world(waitOutcome: () => Promise<unknown>) {
  const asked: ChatMessage[][] = [];
  const calls: Record<string, unknown>[] = [];
  const waits: Array<{ kind: string; name: string; args: any }> = [];
  const model: LanguageModel = {
    modelId: 'fake',
    pricing: { inputPerMTok: 0, outputPerMTok: 0 },
    async complete({ messages }) {
      asked.push(structuredClone(messages));
      return asked.length === 1
        ? { content: '', toolCalls: [{ id: 'c1', name: 'shop__buy', argumentsJson: '{"item":"laptop"}' }], usage: { inputTokens: 1, outputTokens: 1 } }
        : { content: 'done', toolCalls: [], usage: { inputTokens: 1, outputTokens: 1 } };
    },
  };
  const tool = (price?: number): BoundTool => ({
    definition: { name: 'shop__buy', description: 'buys', parameters: { type: 'object' } },
    ...(price !== undefined && { price }),
    invoke: async (args) => (calls.push(args), { output: { bought: true }, cost: price ?? 0 }),
  });
  const steps: AgentSteps = {
    step: (_name, fn) => fn(),
    waitFor: async <T>(kind: string, name: string, args: unknown) => (waits.push({ kind, name, args }), (await waitOutcome()) as T),
  };
  const run = (price: number | undefined, approval: { required: string[]; aboveUsd?: number }) =>
    runAgent({ model, prompt: 'buy', trigger: {}, tools: [tool(price)], unknownTools: [], remainingMs: () => 1000, steps, approval, flowTitle: 'Shopper' });
  const toolAnswer = () => asked[1]!.find((message) => message.role === 'tool')!.content;
  return { run, calls, waits, toolAnswer };
}

describe('llm agent: tool calls held for approval', () => {
  it('tells the model the approval timed out and does not call the tool', async () => {
    // Prepare
    const { run, calls, waits, toolAnswer } = world(() => Promise.reject(Object.assign(new Error('approval timed out'), { code: 'TIMEOUT' })));
    // Act
    const outcome = await run(undefined, { required: ['shop__buy'] });
    // Assess
    expect(outcome).toMatchObject({ ok: true, result: { output: 'done' } });
    expect(toolAnswer()).toBe('approval timed out');
    expect(calls).toEqual([]);
    expect(waits).toEqual([
      { kind: 'approval', name: 'approval 1.1 shop__buy', args: { message: expect.stringContaining('{"item":"laptop"}'), timeout: { hours: 24 } } },
    ]);
  });

  it('holds a call priced above the threshold and lets one at or below it through', async () => {
    // Prepare
    const approve = () => Promise.resolve({ decision: 'approve', by: 'ana', comment: null });
    const [above, atThreshold] = [world(approve), world(approve)];
    // Act
    await above.run(0.05, { required: [], aboveUsd: 0.01 });
    await atThreshold.run(0.01, { required: [], aboveUsd: 0.01 });
    // Assess
    expect(above.waits).toHaveLength(1);
    expect(above.calls).toEqual([{ item: 'laptop' }]);
    expect(atThreshold.waits).toEqual([]);
    expect(atThreshold.calls).toEqual([{ item: 'laptop' }]);
  });
});
