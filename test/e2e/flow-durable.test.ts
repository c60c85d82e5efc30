// Direct flows whose script is durable, over HTTP with real sandboxed workers and DynamoDB Local: the flow's execution
// waits while its script's run waits, holds none of the flow's concurrent places meanwhile, and settles with the
// run's result, status and cost when the run ends; runFlow answers such a run at once.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sampleInput } from '../support/event-samples.js';
import { flowsPath, getFlow, givenEventFlow, givenTimeFlow } from '../support/flows.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
});
afterAll(async () => {
  await api.stop();
});

/** A step, a durable wait of `seconds`, then the step's result back (or a failure, when the data asks for one). */
const waitingScript = (seconds: number) => `export async function handler(event, context) {
  const seen = await context.step('seen', async () => event.data.flowId ?? event.data.type);
  await context.wait('pause', { seconds: ${seconds} });
  if (event.data.mailapp?.subject === 'fail please') throw new Error('failed after the wait');
  return { seen, done: true };
}`;
const durableScript = (seconds: number) => givenDeployed(api, owner, { code: waitingScript(seconds), config: { durable: true } });

const runFlow = (assignmentId: string) => api.as(owner.apiKey).post(flowsPath('runFlow'), { assignmentId });
const history = async (flowId: string) =>
  (await api.as(owner.apiKey).get(`/api/sdk/v1/executions?flowId=${flowId}`)).body.data.executions as Array<Record<string, any>>;
/** The flow's one execution once it has `status`. */
const executionWith = (flowId: string, status: string) =>
  vi.waitFor(
    async () => {
      const [execution] = (await getFlow(api, owner, flowId)).executionResults;
      expect(execution?.status).toBe(status);
      return execution as Record<string, any>;
    },
    { timeout: 15_000, interval: 100 },
  );

describe('direct flows with a durable script', () => {
  it('runFlow answers 202 waiting; the execution waits, then succeeds with the script run result and cost', async () => {
    // Prepare
    const script = await durableScript(2);
    const flow = await givenTimeFlow(api, owner, script.id, { executionType: 'direct' });
    // Act
    const started = await runFlow(flow.id);
    // Assess
    expect(started.status).toBe(202);
    expect(started.body.data).toEqual({ executionId: expect.any(String), status: 'waiting' });
    const { executionId } = started.body.data;
    const waiting = await getFlow(api, owner, flow.id);
    expect(waiting.executionResults).toEqual([expect.objectContaining({ executionId, status: 'waiting', result: null })]);
    expect((await history(flow.id)).find((item) => item.kind === 'flow')).toMatchObject({ executionId, status: 'waiting' });
    expect((await history(flow.id)).find((item) => item.kind === 'script')).toMatchObject({ status: 'waiting' });
    const settled = await executionWith(flow.id, 'success');
    expect(settled).toMatchObject({ executionId, result: { seen: flow.id, done: true } });
    const scriptRun = (await history(flow.id)).find((item) => item.kind === 'script')!;
    expect(scriptRun).toMatchObject({ status: 'completed', parentExecutionId: executionId, rootExecutionId: executionId });
    expect(scriptRun.cost).toBeGreaterThan(0);
    expect(settled.cost).toBe(Math.round(scriptRun.cost * 1e6) / 1e6);
    expect(settled.duration).toBeGreaterThanOrEqual(2000);
    expect(settled.error).toBeUndefined();
    expect((await history(flow.id)).find((item) => item.kind === 'flow')).toMatchObject({ executionId, status: 'completed' });
  });

  it('an event flow waits while its script waits, then records the failure of the run', async () => {
    // Prepare
    const script = await durableScript(1);
    const flow = await givenEventFlow(api, owner, {
      executionType: 'direct',
      scriptId: script.id,
      conditions: { field: 'subject', operator: 'equals', value: 'fail please' },
    });
    const event = sampleInput('mailapp.email_received') as Record<string, any>;
    // Act
    const published = await api.as(owner.apiKey).post('/api/sdk/v1/events', { ...event, mailapp: { ...event.mailapp, subject: 'fail please' } });
    // Assess
    expect(published.status).toBe(202);
    const waiting = await executionWith(flow.id, 'waiting');
    const failed = await executionWith(flow.id, 'failed');
    expect(failed.executionId).toBe(waiting.executionId);
    expect(failed.error).toEqual({ code: 'SCRIPT_ERROR', message: expect.stringContaining('failed after the wait') });
  });

  it("waiting executions hold none of the flow's 10 concurrent places", async () => {
    // Prepare
    const script = await durableScript(60);
    const flow = await givenTimeFlow(api, owner, script.id, { executionType: 'direct' });
    // Act
    const answers = [];
    for (let run = 0; run < 11; run++) answers.push(await runFlow(flow.id));
    // Assess
    expect(answers.map((answer) => `${answer.status} ${answer.body.data?.status ?? answer.body.error?.code}`)).toEqual(
      Array.from({ length: 11 }, () => '202 waiting'),
    );
    const recorded = await getFlow(api, owner, flow.id);
    expect(recorded.executionResults.map((result: { status: string }) => result.status)).toEqual(Array.from({ length: 11 }, () => 'waiting'));
  });
});

describe('replay by flowId', () => {
  const replay = (body: unknown, who = owner) => api.as(who.apiKey).post('/api/sdk/v1/executions/replay', body);
  /** An event flow on mails with `marker` in the subject; its script fails when the subject also says so. */
  async function givenFlowWithRuns(marker: string) {
    const script = await givenDeployed(api, owner, {
      code: `export async function handler(event) {
  if (event.data.mailapp.subject.includes('fail')) throw new Error('failed on purpose: ' + event.data.mailapp.subject);
  return { subject: event.data.mailapp.subject };
}`,
    });
    const flow = await givenEventFlow(api, owner, {
      executionType: 'direct',
      scriptId: script.id,
      conditions: { field: 'subject', operator: 'contains', value: marker },
    });
    const event = sampleInput('mailapp.email_received') as Record<string, any>;
    for (const subject of [`${marker} ok`, `${marker} fail`]) {
      await api.as(owner.apiKey).post('/api/sdk/v1/events', { ...event, mailapp: { ...event.mailapp, subject } });
      await vi.waitFor(
        async () =>
          expect((await getFlow(api, owner, flow.id)).executionResults.map((result: { status: string }) => result.status)).toContain(
            subject.endsWith('ok') ? 'success' : 'failed',
          ),
        { timeout: 15_000, interval: 100 },
      );
    }
    return flow;
  }

  it('re-runs only the filtered executions of the flow, with the data they started with', async () => {
    // Prepare
    const marker = `rp${Date.now().toString(36)}`;
    const flow = await givenFlowWithRuns(marker);
    // Act
    const replayed = await replay({ flowId: flow.id, status: 'failed' });
    // Assess
    expect(replayed.status).toBe(202);
    expect(replayed.body.data.executionIds).toEqual([expect.any(String)]);
    const [executionId] = replayed.body.data.executionIds;
    const rerun = await vi.waitFor(
      async () => {
        const found = (await getFlow(api, owner, flow.id)).executionResults.find((result: { executionId: string }) => result.executionId === executionId);
        expect(found).toBeDefined();
        return found;
      },
      { timeout: 15_000, interval: 100 },
    );
    expect(rerun).toMatchObject({ status: 'failed', error: { message: expect.stringContaining(`${marker} fail`) } });
    expect(rerun.logs[0]).toMatch(/^replay of execution exe_/);
    const statuses = (await getFlow(api, owner, flow.id)).executionResults.map((result: { status: string }) => result.status);
    expect(statuses.sort()).toEqual(['failed', 'failed', 'success']);
  });

  it.each([
    ['both scriptId and flowId', (flowId: string) => ({ flowId, scriptId: 'scr_x' }), 400, 'VALIDATION_ERROR'],
    ['neither scriptId nor flowId', () => ({ status: 'failed' }), 400, 'VALIDATION_ERROR'],
    ['an unknown status', (flowId: string) => ({ flowId, status: 'maybe' }), 400, 'VALIDATION_ERROR'],
    ['an unknown field', (flowId: string) => ({ flowId, everything: true }), 400, 'VALIDATION_ERROR'],
  ])('refuses %s and runs nothing', async (_what, body, status, code) => {
    // Prepare
    const flow = await givenFlowWithRuns(`bad${Date.now().toString(36)}`);
    // Act
    const refused = await replay(body(flow.id));
    // Assess
    expect(refused.status).toBe(status);
    expect(refused.body.error.code).toBe(code);
    expect((await getFlow(api, owner, flow.id)).executionResults).toHaveLength(2);
  });

  it("answers NOT_FOUND for another user's flow and runs nothing", async () => {
    // Prepare
    const flow = await givenFlowWithRuns(`nf${Date.now().toString(36)}`);
    const stranger = await api.givenUser();
    // Act
    const refused = await replay({ flowId: flow.id }, stranger);
    // Assess
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('NOT_FOUND');
    expect((await getFlow(api, owner, flow.id)).executionResults).toHaveLength(2);
  });
});
