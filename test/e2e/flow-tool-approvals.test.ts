// An llm flow's tool calls held for the owner's approval, over HTTP against a local OpenAI-compatible server and a
// local upstream that counts the paid resource's calls: nothing is called before the decision, the approved call
// once after it, a rejection reaches the model as text, and the model is not asked again for the turns before.
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { eventScripts } from '../support/event-scripts.js';
import { flowsPath, getFlow, givenEventFlow } from '../support/flows.js';
import type { LlmServer } from '../support/llm-server.js';
import { type TestApi, type TestUser, reconfigurePlatform } from '../support/platform.js';
import { type Upstream, givenInstalled, givenPublishedResource } from '../support/resources.js';
import { type ToolFlowWorld, startToolFlowWorld, unsetLanguageModel } from '../support/tool-flows.js';

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

const reports = () => upstream.received.filter((request) => request.method === 'POST' && request.url === '/reports');

/** A user with the paid resource installed (its `report` method costs 0.05 USD) and the model scripted to call it once. */
async function givenPaidTool(): Promise<{ user: TestUser; resourceName: string }> {
  const user = await api.givenUser();
  const resourceName = `reports-${Math.random().toString(36).slice(2, 8)}`;
  await givenInstalled(api, user, await givenPublishedResource(api, user, { name: resourceName }, { baseUrl: upstream.baseUrl }));
  reconfigurePlatform({ LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'test-model' });
  llm.script([
    () => ({ toolCalls: [{ name: `${resourceName}__report`, arguments: { text: 'quarterly numbers' } }] }),
    (request) => ({ content: `done: ${request.messages.at(-1)!.content}` }),
  ]);
  return { user, resourceName };
}

async function runWaiting(user: TestUser, flowId: string): Promise<{ executionId: string; approvalId: string }> {
  const started = await api.as(user.apiKey).post(flowsPath('runFlow'), { assignmentId: flowId });
  expect(started.status, started.text).toBe(202);
  expect(started.body.data.status).toBe('waiting');
  const approvals = await api.as(user.apiKey).get('/api/sdk/v1/approvals');
  const approval = approvals.body.data.approvals.find((item: any) => item.flowId === flowId);
  expect(approval).toMatchObject({ executionId: started.body.data.executionId, status: 'pending', approvers: [{ userId: user.userId }] });
  expect(approval.message).toContain('quarterly numbers');
  return { executionId: started.body.data.executionId, approvalId: approval.approvalId };
}

const finished = (user: TestUser, flowId: string) =>
  vi.waitFor(
    async () => {
      const [result] = (await getFlow(api, user, flowId)).executionResults;
      if (result?.status === 'waiting') throw new Error('still waiting');
      return result;
    },
    { timeout: 20_000, interval: 100 },
  );

describe('llm flows: tool calls held for approval', () => {
  it('holds a paid call priced above approvalAboveUsd until the owner approves, then calls the upstream once without asking the model again for the first turn', async () => {
    // Prepare
    const { user, resourceName } = await givenPaidTool();
    const flow = await givenEventFlow(api, user, { prompt: 'File the report.', recommendedTools: [`${resourceName}.report`], approvalAboveUsd: 0.01 });
    const [reportsBefore, requestsBefore] = [reports().length, llm.requests.length];
    const { executionId, approvalId } = await runWaiting(user, flow.id);
    // Assess: the model asked once, the upstream not at all, the run waits
    expect(llm.requests.length - requestsBefore).toBe(1);
    expect(reports().length - reportsBefore).toBe(0);
    expect((await getFlow(api, user, flow.id)).executionResults[0]).toMatchObject({ executionId, status: 'waiting' });
    // Act
    const decided = await api.as(user.apiKey).post(`/api/sdk/v1/approvals/${approvalId}`, { decision: 'approve' });
    // Assess
    expect(decided.status, decided.text).toBe(200);
    const result = await finished(user, flow.id);
    expect(result).toMatchObject({ executionId, status: 'success', result: { steps: 2, toolCalls: 1 } });
    expect(reports().length - reportsBefore).toBe(1);
    expect(llm.requests.length - requestsBefore).toBe(2);
    expect(result.result.output).toContain('"filed":true');
    // The first invocation's line survives the wait, before the lines of the invocation that continued the run.
    expect(result.logLines[0]).toEqual({ text: 'a tool call waits for its approval; the run continues after the decision', invocation: 1 });
    expect(result.logs.slice(1)).toEqual(expect.arrayContaining([expect.stringMatching(/^model turn 2/)]));
    expect(result.logLines.slice(1).every((line: { invocation: number }) => line.invocation === 2)).toBe(true);
    // The one run record says the same.
    const record = await api.as(user.apiKey).get(`/api/sdk/v1/executions/${executionId}`);
    expect(record.body.data.logLines).toEqual(result.logLines);
  });

  it('answers the model with the rejection when the owner rejects a call named in approvalRequired, and the upstream sees none', async () => {
    // Prepare
    const { user, resourceName } = await givenPaidTool();
    const flow = await givenEventFlow(api, user, {
      prompt: 'File the report.',
      recommendedTools: [`${resourceName}.report`],
      approvalRequired: [`${resourceName}__report`],
    });
    const [reportsBefore, requestsBefore] = [reports().length, llm.requests.length];
    const { executionId, approvalId } = await runWaiting(user, flow.id);
    // Act
    const decided = await api.as(user.apiKey).post(`/api/sdk/v1/approvals/${approvalId}`, { decision: 'reject', comment: 'not this quarter' });
    // Assess
    expect(decided.status, decided.text).toBe(200);
    const result = await finished(user, flow.id);
    expect(result).toMatchObject({ executionId, status: 'success' });
    const toolMessage = llm.requests.at(-1)!.messages.find((message) => message.role === 'tool');
    expect(toolMessage!.content).toBe(`rejected by ${user.username}: not this quarter`);
    expect(reports().length - reportsBefore).toBe(0);
    expect(llm.requests.length - requestsBefore).toBe(2);
  });

  it.each([
    ['not a list', 'report'],
    ['an empty name', ['']],
    ['a name over 200 characters', ['x'.repeat(201)]],
    ['more than 50 names', Array.from({ length: 51 }, (_, index) => `tool_${index}`)],
  ])('refuses approvalRequired with %s and changes nothing', async (_case, approvalRequired) => {
    // Prepare
    const user = await api.givenUser();
    const flow = await givenEventFlow(api, user, { prompt: 'File the report.' });
    // Act
    const created = await api.as(user.apiKey).post(flowsPath('createEventFlow'), {
      title: 'Held',
      description: 'Holds its tools',
      eventType: 'chatapp.message',
      conditions: { operator: 'AND', conditions: [] },
      prompt: 'File the report.',
      approvalRequired,
    });
    const updated = await api.as(user.apiKey).post(flowsPath('updateFlow'), { assignmentId: flow.id, approvalRequired });
    // Assess
    for (const answer of [created, updated]) {
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: expect.stringMatching(/^approvalRequired/) } });
    }
    const flows = await api.as(user.apiKey).post(flowsPath('searchFlows'), {});
    expect(flows.body.data.count).toBe(1);
    expect(await getFlow(api, user, flow.id)).toMatchObject({ approvalRequired: [], updatedAt: flow.updatedAt });
  });

  it('refuses approval rules on a direct flow, which calls no tools, and creates nothing', async () => {
    // Prepare
    const user = await api.givenUser();
    const scriptId = await eventScripts(api).givenScript(user);
    // Act
    const created = await api.as(user.apiKey).post(flowsPath('createTimeFlow'), {
      title: 'Direct',
      description: 'Runs its script',
      schedule: '0 9 * * *',
      scriptId,
      executionType: 'direct',
      approvalAboveUsd: 1,
    });
    // Assess
    expect(created.status).toBe(400);
    expect(created.body.error.details).toMatchObject({ field: 'approvalAboveUsd', value: 1 });
    expect((await api.as(user.apiKey).post(flowsPath('searchFlows'), {})).body.data.count).toBe(0);
  });

  it('refuses a negative approvalAboveUsd and changes nothing', async () => {
    // Prepare
    const user = await api.givenUser();
    const flow = await givenEventFlow(api, user, { prompt: 'File the report.' });
    // Act
    const negative = await api.as(user.apiKey).post(flowsPath('updateFlow'), { assignmentId: flow.id, approvalAboveUsd: -1 });
    // Assess
    expect(negative.status).toBe(400);
    expect(negative.body.error.details).toMatchObject({ field: 'approvalAboveUsd', value: -1 });
    expect(await getFlow(api, user, flow.id)).toMatchObject({ approvalAboveUsd: null, updatedAt: flow.updatedAt });
  });
});
