// An llm flow's run operated through the run operations, over HTTP against a local OpenAI-compatible server and a
// local upstream that counts the paid tool's calls: cancel a run waiting for a tool call's approval, re-run a run
// (whole, or from one of its model turns or tool calls) and replay a flow's runs, with the answers a durable script
// run gets, and hostile input answered in the error envelope with nothing changed.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { flowsPath, getFlow, givenEventFlow } from '../support/flows.js';
import type { LlmServer, Turn } from '../support/llm-server.js';
import { type TestApi, type TestUser, reconfigurePlatform } from '../support/platform.js';
import { type Upstream, givenInstalled, givenPublishedResource } from '../support/resources.js';
import { type ToolFlowWorld, startToolFlowWorld, unsetLanguageModel } from '../support/tool-flows.js';
import { givenDeployed } from '../support/scripts.js';

let api: TestApi;
let llm: LlmServer;
let upstream: Upstream;

let world: ToolFlowWorld;

beforeAll(async () => {
  world = await startToolFlowWorld();
  ({ api, llm, upstream } = world);
});
afterEach(unsetLanguageModel);
afterAll(() => world.stop());

const executions = '/api/sdk/v1/executions';
const reports = () => upstream.received.filter((request) => request.method === 'POST' && request.url === '/reports').length;
const toolCallTurn =
  (resourceName: string): Turn =>
  () => ({ toolCalls: [{ name: `${resourceName}__report`, arguments: { text: 'quarterly numbers' } }] });
const answerTurn: Turn = (request) => ({ content: `done: ${request.messages.at(-1)!.content}` });

/** A user with the paid `report` tool installed and an llm flow that needs approval to call it. */
async function givenHeldFlow(): Promise<{ user: TestUser; resourceName: string; flowId: string }> {
  const user = await api.givenUser();
  const resourceName = `reports-${Math.random().toString(36).slice(2, 8)}`;
  await givenInstalled(api, user, await givenPublishedResource(api, user, { name: resourceName }, { baseUrl: upstream.baseUrl }));
  reconfigurePlatform({ LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'test-model' });
  const flow = await givenEventFlow(api, user, {
    prompt: 'File the report.',
    recommendedTools: [`${resourceName}.report`],
    approvalRequired: [`${resourceName}__report`],
  });
  return { user, resourceName, flowId: flow.id };
}

/** runFlow, scripted to call the tool once: the run waits for the approval. */
async function runWaiting(user: TestUser, resourceName: string, flowId: string): Promise<{ executionId: string; approvalId: string }> {
  llm.script([toolCallTurn(resourceName), answerTurn]);
  const started = await api.as(user.apiKey).post(flowsPath('runFlow'), { assignmentId: flowId });
  expect(started.status, started.text).toBe(202);
  const approvals = await api.as(user.apiKey).get('/api/sdk/v1/approvals');
  const approval = approvals.body.data.approvals.find((item: any) => item.executionId === started.body.data.executionId);
  return { executionId: started.body.data.executionId, approvalId: approval.approvalId };
}

/** The flow's execution `executionId` once it no longer waits or runs. */
const ended = (user: TestUser, flowId: string, executionId: string) =>
  vi.waitFor(
    async () => {
      const result = (await getFlow(api, user, flowId)).executionResults.find((item: any) => item.executionId === executionId);
      if (!result || result.status === 'waiting' || result.status === 'running') throw new Error(`execution ${executionId} has not ended`);
      return result;
    },
    { timeout: 20_000, interval: 100 },
  );

/** A run that called the tool after its approval and then answered: three model-side steps and one tool call. */
async function givenApprovedRun(user: TestUser, resourceName: string, flowId: string): Promise<string> {
  const { executionId, approvalId } = await runWaiting(user, resourceName, flowId);
  const decided = await api.as(user.apiKey).post(`/api/sdk/v1/approvals/${approvalId}`, { decision: 'approve' });
  expect(decided.status, decided.text).toBe(200);
  expect(await ended(user, flowId, executionId)).toMatchObject({ status: 'success' });
  return executionId;
}

/** A re-run that passes an approval asks again (the decision held for its run only): the owner approves it again. */
async function approveAgain(user: TestUser, executionId: string): Promise<void> {
  const approval = await vi.waitFor(
    async () => {
      const found = (await api.as(user.apiKey).get('/api/sdk/v1/approvals')).body.data.approvals.find((item: any) => item.executionId === executionId);
      if (!found) throw new Error(`no approval of ${executionId} yet`);
      return found;
    },
    { timeout: 20_000, interval: 100 },
  );
  expect((await api.as(user.apiKey).post(`/api/sdk/v1/approvals/${approval.approvalId}`, { decision: 'approve' })).status).toBe(200);
}

const historyOf = async (user: TestUser, flowId: string) => (await api.as(user.apiKey).get(`${executions}?flowId=${flowId}`)).body.data.executions;

describe('llm flows: cancel', () => {
  it('cancels a run waiting for a tool approval: its execution fails with CANCELLED, the decision is refused and the tool never runs', async () => {
    // Prepare
    const { user, resourceName, flowId } = await givenHeldFlow();
    const { executionId, approvalId } = await runWaiting(user, resourceName, flowId);
    const [reportsBefore, requestsBefore] = [reports(), llm.requests.length];
    // Act
    const cancelled = await api.as(user.apiKey).post(`${executions}/${executionId}/cancel`);
    const again = await api.as(user.apiKey).post(`${executions}/${executionId}/cancel`);
    const decided = await api.as(user.apiKey).post(`/api/sdk/v1/approvals/${approvalId}`, { decision: 'approve' });
    // Assess
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(cancelled.body.data).toEqual({ executionId, status: 'cancelled' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
    expect(decided.status).toBe(409);
    const [result] = (await getFlow(api, user, flowId)).executionResults;
    expect(result).toMatchObject({ executionId, status: 'failed', error: { code: 'CANCELLED' } });
    expect((await historyOf(user, flowId))[0]).toMatchObject({ executionId, kind: 'flow', status: 'cancelled', error: { code: 'CANCELLED' } });
    expect(reports()).toBe(reportsBefore);
    expect(llm.requests.length).toBe(requestsBefore);
  });

  it('refuses to cancel an llm flow run that ended, with approval rules or without, with CONFLICT', async () => {
    // Prepare
    const { user, resourceName, flowId } = await givenHeldFlow();
    const approved = await givenApprovedRun(user, resourceName, flowId);
    const plain = await givenEventFlow(api, user, { prompt: 'Say hello.' });
    llm.script([answerTurn]);
    const plainRun = await api.as(user.apiKey).post(flowsPath('runFlow'), { assignmentId: plain.id });
    expect(plainRun.status, plainRun.text).toBe(200);
    // Act
    const endedRun = await api.as(user.apiKey).post(`${executions}/${approved}/cancel`);
    const notDurable = await api.as(user.apiKey).post(`${executions}/${plainRun.body.data.executionId}/cancel`);
    // Assess
    for (const answer of [endedRun, notDurable]) {
      expect(answer.status, answer.text).toBe(409);
      expect(answer.body.error.code).toBe('CONFLICT');
    }
    expect((await getFlow(api, user, flowId)).executionResults[0]).toMatchObject({ executionId: approved, status: 'success' });
    expect((await getFlow(api, user, plain.id)).executionResults[0]).toMatchObject({ status: 'success' });
  });
});

describe('direct flows: cancel', () => {
  it("refuses to cancel a direct flow's execution waiting on its durable script, naming the script's run; cancelling that run fails the execution with CANCELLED", async () => {
    // Prepare
    const user = await api.givenUser();
    const code = `export async function handler(event, context) {
  await context.wait('pause', { hours: 1 });
  return { done: true };
}`;
    const script = await givenDeployed(api, user, { code, config: { durable: true } });
    const flow = await givenEventFlow(api, user, { executionType: 'direct', scriptId: script.id });
    const started = await api.as(user.apiKey).post(flowsPath('runFlow'), { assignmentId: flow.id });
    expect(started.body.data.status, started.text).toBe('waiting');
    const { executionId } = started.body.data;
    const scriptRun = (await historyOf(user, flow.id)).find((item: any) => item.kind === 'script');
    // Act
    const refused = await api.as(user.apiKey).post(`${executions}/${executionId}/cancel`);
    const waitingAfterRefusal = (await getFlow(api, user, flow.id)).executionResults[0];
    const cancelled = await api.as(user.apiKey).post(`${executions}/${scriptRun.executionId}/cancel`);
    // Assess
    expect(refused.status, refused.text).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CONFLICT', message: expect.stringContaining(scriptRun.executionId) });
    expect(waitingAfterRefusal).toMatchObject({ executionId, status: 'waiting' });
    expect(cancelled.status, cancelled.text).toBe(200);
    expect(await ended(user, flow.id, executionId)).toMatchObject({ status: 'failed', error: { code: 'CANCELLED' } });
  });
});

describe('llm flows: re-run', () => {
  it('re-runs a whole run as a new execution with the data it started with', async () => {
    // Prepare
    const user = await api.givenUser();
    reconfigurePlatform({ LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'test-model' });
    const flow = await givenEventFlow(api, user, { prompt: 'Say hello.' });
    llm.script([answerTurn]);
    const original = await api.as(user.apiKey).post(flowsPath('runFlow'), { assignmentId: flow.id });
    const firstAsked = llm.requests.at(-1)!.messages[1]!.content;
    llm.script([answerTurn]);
    // Act
    const rerun = await api.as(user.apiKey).post(`${executions}/${original.body.data.executionId}/rerun`, {});
    // Assess
    expect(rerun.status, rerun.text).toBe(202);
    expect(rerun.body.data).toEqual({ executionId: expect.stringMatching(/^exe_/), status: 'running' });
    expect(rerun.body.data.executionId).not.toBe(original.body.data.executionId);
    expect(await ended(user, flow.id, rerun.body.data.executionId)).toMatchObject({ status: 'success' });
    expect(llm.requests.at(-1)!.messages[1]!.content).toBe(firstAsked);
  });

  it('re-runs from a model turn: the turns and tool calls before it keep their results, and their approval is asked again', async () => {
    // Prepare
    const { user, resourceName, flowId } = await givenHeldFlow();
    const original = await givenApprovedRun(user, resourceName, flowId);
    const [reportsBefore, requestsBefore] = [reports(), llm.requests.length];
    llm.script([answerTurn]);
    // Act
    const rerun = await api.as(user.apiKey).post(`${executions}/${original}/rerun`, { fromStep: 'turn 2' });
    // Assess
    expect(rerun.status, rerun.text).toBe(202);
    await approveAgain(user, rerun.body.data.executionId);
    const result = await ended(user, flowId, rerun.body.data.executionId);
    expect(result).toMatchObject({ status: 'success', result: { steps: 2, toolCalls: 1 } });
    expect(result.logs[0]).toBe(`re-run of execution ${original} from step turn 2`);
    expect(result.result.output).toContain('"filed":true');
    expect(reports()).toBe(reportsBefore);
    expect(llm.requests.length - requestsBefore).toBe(1);
  });

  it('re-runs from a tool call: the model is not asked again for the turn before, the call is approved again and runs again', async () => {
    // Prepare
    const { user, resourceName, flowId } = await givenHeldFlow();
    const original = await givenApprovedRun(user, resourceName, flowId);
    const [reportsBefore, requestsBefore] = [reports(), llm.requests.length];
    llm.script([answerTurn]);
    // Act
    const rerun = await api.as(user.apiKey).post(`${executions}/${original}/rerun`, { fromStep: `tool 1.1 ${resourceName}__report` });
    // Assess
    expect(rerun.status, rerun.text).toBe(202);
    await approveAgain(user, rerun.body.data.executionId);
    expect(await ended(user, flowId, rerun.body.data.executionId)).toMatchObject({ status: 'success', result: { steps: 2, toolCalls: 1 } });
    expect(reports() - reportsBefore).toBe(1);
    expect(llm.requests.length - requestsBefore).toBe(1);
  });
});

describe('llm flows: replay', () => {
  it('replays only the cancelled runs of a flow with status cancelled: the new execution waits for a new approval', async () => {
    // Prepare
    const { user, resourceName, flowId } = await givenHeldFlow();
    const { executionId } = await runWaiting(user, resourceName, flowId);
    expect((await api.as(user.apiKey).post(`${executions}/${executionId}/cancel`)).status).toBe(200);
    // A run the model fails (no turn is scripted: the server answers 500): failed, not cancelled.
    llm.script([]);
    const modelFailed = await api.as(user.apiKey).post(flowsPath('runFlow'), { assignmentId: flowId });
    expect(await ended(user, flowId, modelFailed.body.data.executionId)).toMatchObject({ status: 'failed', error: { code: 'LLM_ERROR' } });
    llm.script([toolCallTurn(resourceName), answerTurn]);
    // Act
    const replayed = await api.as(user.apiKey).post(`${executions}/replay`, { flowId, status: 'cancelled' });
    // Assess
    expect(replayed.status, replayed.text).toBe(202);
    expect(replayed.body.data.executionIds).toHaveLength(1);
    const [replayId] = replayed.body.data.executionIds;
    const approval = await vi.waitFor(
      async () => {
        const pending = (await api.as(user.apiKey).get('/api/sdk/v1/approvals')).body.data.approvals;
        const found = pending.find((item: any) => item.executionId === replayId);
        if (!found) throw new Error('no approval yet');
        return found;
      },
      { timeout: 20_000, interval: 100 },
    );
    expect((await getFlow(api, user, flowId)).executionResults[0]).toMatchObject({ executionId: replayId, status: 'waiting' });
    expect((await api.as(user.apiKey).post(`/api/sdk/v1/approvals/${approval.approvalId}`, { decision: 'approve' })).status).toBe(200);
    expect(await ended(user, flowId, replayId)).toMatchObject({ status: 'success' });
  });
});

describe('llm flows: hostile input to the run operations', () => {
  it("answers NOT_FOUND for unknown ids and another user's flow run, and changes nothing", async () => {
    // Prepare
    const { user, resourceName, flowId } = await givenHeldFlow();
    const { executionId, approvalId } = await runWaiting(user, resourceName, flowId);
    const stranger = await api.givenUser();
    const before = await getFlow(api, user, flowId);
    // Act
    const answers = [
      await api.as(stranger.apiKey).post(`${executions}/${executionId}/cancel`),
      await api.as(stranger.apiKey).post(`${executions}/${executionId}/rerun`, {}),
      await api.as(stranger.apiKey).post(`${executions}/${executionId}/rerun`, { fromStep: 'turn 1' }),
      await api.as(stranger.apiKey).post(`${executions}/replay`, { flowId }),
      await api.as(user.apiKey).post(`${executions}/exe_unknown/cancel`),
      await api.as(user.apiKey).post(`${executions}/exe_unknown/rerun`, {}),
      await api.as(user.apiKey).post(`${executions}/replay`, { flowId: 'flow_unknown' }),
    ];
    // Assess
    for (const answer of answers) {
      expect(answer.status, answer.text).toBe(404);
      expect(answer.body).toMatchObject({ success: false, error: { code: 'NOT_FOUND' } });
    }
    const after = await getFlow(api, user, flowId);
    expect(after.executionResults).toEqual(before.executionResults);
    const pending = (await api.as(user.apiKey).get('/api/sdk/v1/approvals')).body.data.approvals;
    expect(pending.find((item: any) => item.approvalId === approvalId)).toMatchObject({ status: 'pending' });
  });

  it.each([
    ['a step the run does not have', { fromStep: 'turn 9' }, 'fromStep'],
    ['a step name that is not a string', { fromStep: 5 }, 'fromStep'],
    ['an empty step name', { fromStep: '' }, 'fromStep'],
    ['an unknown field', { fromStep: 'turn 1', extra: true }, undefined],
  ])('refuses a re-run with %s (VALIDATION_ERROR) and starts nothing', async (_case, body, field) => {
    // Prepare
    const { user, resourceName, flowId } = await givenHeldFlow();
    const original = await givenApprovedRun(user, resourceName, flowId);
    const before = await getFlow(api, user, flowId);
    // Act
    const refused = await api.as(user.apiKey).post(`${executions}/${original}/rerun`, body);
    // Assess
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    if (field) expect(refused.body.error.details.field).toBe(field);
    expect((await getFlow(api, user, flowId)).executionResults).toEqual(before.executionResults);
  });

  it.each([
    ['a flowId that is not a string', (flowId: string) => ({ flowId: [flowId] })],
    ['both a flowId and a scriptId', (flowId: string) => ({ flowId, scriptId: 'scr_x' })],
    ['an unknown status', (flowId: string) => ({ flowId, status: 'paused' })],
    ['a from that is not a time', (flowId: string) => ({ flowId, from: 'yesterday' })],
  ])('refuses a replay with %s (VALIDATION_ERROR) and starts nothing', async (_case, body) => {
    // Prepare
    const { user, resourceName, flowId } = await givenHeldFlow();
    await givenApprovedRun(user, resourceName, flowId);
    const before = await getFlow(api, user, flowId);
    // Act
    const refused = await api.as(user.apiKey).post(`${executions}/replay`, body(flowId));
    // Assess
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    expect((await getFlow(api, user, flowId)).executionResults).toEqual(before.executionResults);
  });

  it('refuses a cancel with a body of the wrong shape and leaves the run waiting', async () => {
    // Prepare
    const { user, resourceName, flowId } = await givenHeldFlow();
    const { executionId } = await runWaiting(user, resourceName, flowId);
    // Act
    const refused = await api.as(user.apiKey).post(`${executions}/${executionId}/cancel`, { force: true });
    // Assess
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body).toMatchObject({ success: false, error: { code: 'VALIDATION_ERROR' } });
    expect((await getFlow(api, user, flowId)).executionResults[0]).toMatchObject({ executionId, status: 'waiting' });
  });
});
