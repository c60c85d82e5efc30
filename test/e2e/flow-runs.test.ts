// Flow executions over HTTP with real scripts: event flows run by the bus, runFlow, an LLM flow against a local
// OpenAI-compatible server whose tool calls the platform executes and feeds back, the missing-model failure,
// and getFlowScript / modifyFlowScript on flows.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sampleInput } from '../support/event-samples.js';
import { eventScripts } from '../support/event-scripts.js';
import { flowsPath, getFlow, givenEventFlow, givenTimeFlow, waitForExecutions } from '../support/flows.js';
import { type LlmServer, startLlmServer } from '../support/llm-server.js';
import { type TestApi, type TestUser, reconfigurePlatform, startTestPlatform } from '../support/platform.js';
import { type Upstream, givenInstalled, givenPublishedResource, startUpstream } from '../support/resources.js';
import { givenListed, sdk } from '../support/scripts.js';

let api: TestApi;
let scripts: ReturnType<typeof eventScripts>;
let llm: LlmServer;
let upstream: Upstream;
const llmEnv = ['LLM_BASE_URL', 'LLM_MODEL', 'LLM_API_KEY', 'LLM_INPUT_USD_PER_MTOK', 'LLM_OUTPUT_USD_PER_MTOK'];

beforeAll(async () => {
  api = await startTestPlatform();
  scripts = eventScripts(api);
  [llm, upstream] = await Promise.all([startLlmServer(), startUpstream()]);
});
const withoutModel = () => Object.fromEntries(llmEnv.map((name) => [name, undefined]));
afterEach(() => reconfigurePlatform(withoutModel()));
afterAll(async () => {
  await Promise.all([llm.close(), upstream.close()]);
  await api.stop();
});

const post = (user: TestUser, operation: string, body: unknown) => api.as(user.apiKey).post(flowsPath(operation), body);
const publish = async (user: TestUser, event: Record<string, unknown>) => {
  const response = await api.as(user.apiKey).post('/api/sdk/v1/events', event);
  if (response.status !== 202) throw new Error(`could not publish: ${response.text}`);
};

describe('flows: event flows run their script', () => {
  it('runs the flow whose conditions match the event, and not the one whose conditions do not', async () => {
    // Prepare
    const user = await api.givenUser();
    const scriptId = await scripts.givenScript(user);
    const direct = { executionType: 'direct', scriptId };
    const matching = await givenEventFlow(api, user, {
      ...direct,
      conditions: {
        operator: 'AND',
        conditions: [
          { field: 'from', operator: 'endsWith', value: '@globex.example' },
          { field: 'subject', operator: 'contains', value: 'urgent' },
        ],
      },
    });
    const unmatched = await givenEventFlow(api, user, { ...direct, conditions: { field: 'from', operator: 'equals', value: 'boss@acme.example' } });
    // Act
    await publish(user, sampleInput('mailapp.email_received'));
    const ran = await waitForExecutions(api, user, matching.id, 1);
    // Assess
    const [result] = ran.executionResults;
    expect(result).toMatchObject({
      executionId: expect.stringMatching(/^exe_/),
      status: 'success',
      duration: expect.any(Number),
      cost: expect.any(Number),
      logs: expect.any(Array),
    });
    expect(result.result.trigger).toEqual({ type: 'flow', source: matching.id, event: 'mailapp.email_received' });
    expect(result.result.data).toMatchObject({
      type: 'mailapp.email_received',
      userId: user.userId,
      mailapp: { subject: 'URGENT: overdue invoice from Globex Corporation' },
    });
    expect(ran).toMatchObject({ executionCount: 1, lastExecutedAt: result.timestamp });
    expect((await getFlow(api, user, unmatched.id)).executionCount).toBe(0);
    expect(await scripts.runsOf(user, scriptId)).toHaveLength(1);
  });

  it('runs a time flow now with runFlow and records the result', async () => {
    // Prepare
    const user = await api.givenUser();
    const scriptId = await scripts.givenScript(user);
    const flow = await givenTimeFlow(api, user, scriptId);
    // Act
    const run = await post(user, 'runFlow', { assignmentId: flow.id });
    // Assess
    expect(run.status).toBe(200);
    expect(run.body.data).toEqual({
      executionId: expect.stringMatching(/^exe_/),
      timestamp: expect.any(String),
      status: 'success',
      duration: expect.any(Number),
      cost: expect.any(Number),
      logs: expect.any(Array),
      logLines: expect.any(Array),
      result: {
        success: true,
        trigger: { type: 'flow', source: flow.id, event: null },
        data: { flowId: flow.id, manual: true, requestedAt: expect.any(String) },
      },
    });
    const after = await getFlow(api, user, flow.id);
    expect(after.executionResults).toEqual([run.body.data]);
    expect(after.executionCount).toBe(1);
  });
});

describe('flows: llm execution', () => {
  it('sends the prompt, the event and the recommended tools, executes the tool calls as the owner and feeds them back', async () => {
    // Prepare
    const user = await api.givenUser();
    const resourceName = `forecasts-${Date.now().toString(36)}`;
    const resourceId = await givenPublishedResource(api, user, { name: resourceName }, { baseUrl: upstream.baseUrl });
    await givenInstalled(api, user, resourceId);
    const scriptId = await scripts.givenScript(user);
    upstream.respond((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ city: request.url.split('/').pop(), forecast: 'sunny' }));
    });
    reconfigurePlatform({
      LLM_BASE_URL: llm.baseUrl,
      LLM_MODEL: 'test-model',
      LLM_API_KEY: 'sk-test',
      LLM_INPUT_USD_PER_MTOK: '3',
      LLM_OUTPUT_USD_PER_MTOK: '15',
    });
    llm.script([
      (request) => {
        const names = request.tools!.map((tool) => tool.function.name);
        return {
          toolCalls: [
            { name: names.find((name) => name.endsWith('__getForecast'))!, arguments: { city: 'Paris' } },
            { name: names.find((name) => name.startsWith('script__'))!, arguments: { data: { note: 'from the model' } } },
          ],
        };
      },
      () => ({ content: 'Sent the Paris forecast.' }),
    ]);
    const flow = await givenEventFlow(api, user, {
      eventType: 'chatapp.message',
      conditions: { field: 'text', operator: 'contains', value: 'weather' },
      prompt: 'Look up the forecast for the city in the message and log it with the script.',
      recommendedTools: [`${resourceName}.getForecast`, scriptId, 'calendar.createEvent'],
    });
    // Act
    await publish(user, { type: 'chatapp.message', content: { text: 'What is the weather in Paris?' }, actor: { name: 'Ana' } });
    const ran = await waitForExecutions(api, user, flow.id, 1);
    // Assess
    const [result] = ran.executionResults;
    expect(result).toMatchObject({ status: 'success', result: { output: 'Sent the Paris forecast.', steps: 2, toolCalls: 2 } });
    const tokens = (2 * (1000 * 3 + 200 * 15)) / 1_000_000;
    expect(result.cost).toBeGreaterThanOrEqual(tokens);
    expect(result.cost).toBeLessThan(tokens + 0.001);
    expect(result.logs.join('\n')).toContain('calendar.createEvent');
    const [first, second] = llm.requests;
    expect(first).toMatchObject({ model: 'test-model', authorization: 'Bearer sk-test' });
    const toolNames = first!.tools!.map((tool) => tool.function.name);
    expect(toolNames).toHaveLength(2);
    expect(toolNames).toEqual(expect.arrayContaining([`${resourceName}__getForecast`, expect.stringMatching(/^script__events-/)]));
    expect(first!.tools!.find((tool) => tool.function.name.endsWith('__getForecast'))!.function.parameters).toEqual({
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city'],
    });
    expect(first!.messages[1]!.content).toContain('Look up the forecast');
    expect(first!.messages[1]!.content).toContain('What is the weather in Paris?');
    const toolMessages = second!.messages.filter((message) => message.role === 'tool');
    expect(toolMessages.map((message) => message.tool_call_id)).toEqual(['call_1_0', 'call_1_1']);
    expect(JSON.parse(toolMessages[0]!.content!)).toEqual({ success: true, status: 200, data: { city: 'Paris', forecast: 'sunny' } });
    expect(JSON.parse(toolMessages[1]!.content!)).toMatchObject({
      status: 'success',
      output: { success: true, trigger: { type: 'flow', source: flow.id }, data: { note: 'from the model' } },
    });
    expect(upstream.received.map((request) => `${request.method} ${request.url}`)).toContain('GET /forecast/Paris');
    // The script the tool call ran is a child run of the flow run, in its run tree.
    const children = await api.as(user.apiKey).get(`/api/sdk/v1/executions?parentExecutionId=${result.executionId}`);
    expect(children.body.data.executions).toEqual([
      expect.objectContaining({ kind: 'script', scriptId, parentExecutionId: result.executionId, rootExecutionId: result.executionId }),
    ]);
  });

  it('fails every run of an llm flow created without a model at once with LLM_NOT_CONFIGURED, calling neither model nor tools', async () => {
    // Prepare
    const user = await api.givenUser();
    const scriptId = await scripts.givenScript(user);
    const requestsBefore = llm.requests.length;
    const eventFlow = await givenEventFlow(api, user, {
      conditions: { field: 'subject', operator: 'contains', value: 'urgent' },
      recommendedTools: [scriptId],
    });
    const timeFlow = await givenTimeFlow(api, user, scriptId, { executionType: 'llm', prompt: 'Run the script and report' });
    // Act
    await publish(user, sampleInput('mailapp.email_received'));
    const ranOnEvent = await waitForExecutions(api, user, eventFlow.id, 1);
    const ranNow = await post(user, 'runFlow', { assignmentId: timeFlow.id });
    const history = await api.as(user.apiKey).get(`/api/sdk/v1/executions?flowId=${eventFlow.id}`);
    // Assess
    const notConfigured = { status: 'failed', result: null, cost: 0, error: { code: 'LLM_NOT_CONFIGURED', message: expect.stringContaining('LLM_BASE_URL') } };
    expect(eventFlow.warnings).toEqual([expect.stringContaining('LLM_NOT_CONFIGURED')]);
    expect(ranOnEvent.executionResults).toEqual([expect.objectContaining(notConfigured)]);
    expect(ranNow.body.data).toMatchObject(notConfigured);
    expect(history.body.data.executions).toEqual([
      expect.objectContaining({ kind: 'flow', flowId: eventFlow.id, status: 'failed', error: notConfigured.error }),
    ]);
    expect(llm.requests).toHaveLength(requestsBefore);
    expect(await scripts.runsOf(user, scriptId)).toHaveLength(0);
  });

  it('fails the execution with LLM_NOT_CONFIGURED when the model was removed after the flow was created', async () => {
    // Prepare
    const user = await api.givenUser();
    reconfigurePlatform({ LLM_BASE_URL: llm.baseUrl, LLM_MODEL: 'test-model' });
    const flow = await givenEventFlow(api, user);
    reconfigurePlatform(withoutModel());
    const requestsBefore = llm.requests.length;
    // Act
    const run = await post(user, 'runFlow', { assignmentId: flow.id });
    // Assess
    expect(run.body.data).toMatchObject({
      status: 'failed',
      result: null,
      error: { code: 'LLM_NOT_CONFIGURED', message: expect.stringContaining('LLM_BASE_URL') },
    });
    expect((await getFlow(api, user, flow.id)).executionResults).toEqual([run.body.data]);
    expect(llm.requests).toHaveLength(requestsBefore);
  });
});

describe('flows: getFlowScript and modifyFlowScript', () => {
  it("reads and changes the owner's script of a flow in place", async () => {
    // Prepare
    const user = await api.givenUser();
    const scriptId = await scripts.givenScript(user);
    const flow = await givenTimeFlow(api, user, scriptId);
    const newCode = 'async function handler() { return { success: true, version: 2 }; }';
    // Act
    const read = await api.as(user.apiKey).post(sdk('getFlowScript'), { flowId: flow.id });
    const modified = await api.as(user.apiKey).post(sdk('modifyFlowScript'), { flowId: flow.id, newCode, commitMessage: 'v2' });
    const run = await post(user, 'runFlow', { assignmentId: flow.id });
    // Assess
    expect(read.body.data).toMatchObject({ scriptId, version: 1, isOwned: true, code: expect.stringContaining('handler') });
    expect(modified.body.data).toEqual({ copied: false, scriptId, versionId: expect.any(String), version: 2 });
    expect(run.body.data.result).toEqual({ success: true, version: 2 });
  });

  it("copies another user's script on write and points the flow at the copy", async () => {
    // Prepare
    const [author, user] = await Promise.all([api.givenUser(), api.givenUser()]);
    const listed = await givenListed(api, author);
    await api.as(user.apiKey).post(`/api/sdk/v1/scripts/${listed.id}/install`);
    const flow = await givenTimeFlow(api, user, listed.id);
    // Act
    const before = await api.as(user.apiKey).post(sdk('getFlowScript'), { flowId: flow.id });
    const modified = await api
      .as(user.apiKey)
      .post(sdk('modifyFlowScript'), { flowId: flow.id, newCode: 'async function handler() { return { success: true, mine: true }; }' });
    const stranger = await api.as(author.apiKey).post(sdk('getFlowScript'), { flowId: flow.id });
    // Assess
    expect(before.body.data).toMatchObject({ scriptId: listed.id, isOwned: false });
    expect(modified.body.data).toMatchObject({ copied: true, version: 1 });
    expect(modified.body.data.scriptId).not.toBe(listed.id);
    expect((await getFlow(api, user, flow.id)).scriptId).toBe(modified.body.data.scriptId);
    expect((await api.as(user.apiKey).post(sdk('getFlowScript'), { flowId: flow.id })).body.data).toMatchObject({
      scriptId: modified.body.data.scriptId,
      isOwned: true,
    });
    expect(stranger.status).toBe(404);
  });
});
