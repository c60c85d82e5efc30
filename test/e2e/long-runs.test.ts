// Runs past the synchronous wait over HTTP: executeScript, the REST execute and runFlow answer with their result
// while the run ends within RUN_WAIT_SECONDS, otherwise 202 `running`; the run goes on and records its end. The long
// scripts wait on a resource call to a local upstream that holds its answer until the test releases it.
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { flowsPath, getFlow, givenTimeFlow } from '../support/flows.js';
import { type TestApi, type TestUser, reconfigurePlatform, startTestPlatform } from '../support/platform.js';
import { type Upstream, givenInstalled, givenPublishedResource, json, startUpstream } from '../support/resources.js';
import { type GivenScript, execute, givenDeployed, nodeEcho, rest, sdk } from '../support/scripts.js';

let api: TestApi;
let upstream: Upstream;
let owner: TestUser;
let resourceName: string;
/** Answers the upstream holds back until `release()`. */
let held: ServerResponse[] = [];

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
  owner = await api.givenUser();
  resourceName = `gate-${Date.now().toString(36)}`;
  const resourceId = await givenPublishedResource(api, owner, { name: resourceName }, { baseUrl: upstream.baseUrl });
  await givenInstalled(api, owner, resourceId);
});
afterEach(() => {
  reconfigurePlatform({ RUN_WAIT_SECONDS: undefined });
  release();
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

function holdUpstream() {
  upstream.respond((_request, response) => held.push(response));
}

function release() {
  upstream.respond((request, response) => json(response, 200, { ok: true, path: request.url }));
  for (const response of held) json(response, 200, { ok: true, released: true });
  held = [];
}

/** A script that waits for the upstream's answer, then returns it (or throws with `fail`). */
const gatedScript = () =>
  givenDeployed(api, owner, {
    config: { allowedResources: [resourceName] },
    code: `export async function handler(event) {
  const answer = await resources['${resourceName}'].getForecast({ city: 'Oslo' });
  if (event.data.fail) throw new Error('failed after the wait');
  return answer;
}`,
  });

const getExecution = async (executionId: string) => (await api.as(owner.apiKey).post(sdk('getExecution'), { executionId })).body.data;
const waitForEnd = (executionId: string) =>
  vi.waitFor(
    async () => {
      const execution = await getExecution(executionId);
      expect(execution.status).not.toBe('running');
      return execution;
    },
    { timeout: 20_000, interval: 100 },
  );
/** The run has reached the upstream: it is running past the answer. */
const upstreamReached = () => vi.waitFor(() => expect(held.length).toBe(1), { timeout: 10_000, interval: 50 });

describe('long runs: script executions', () => {
  it('answers a run that ends within the wait synchronously with its result', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { code: nodeEcho('quick') });
    // Act
    const sdkRun = await execute(api, owner, script.id, { n: 1 });
    const restRun = await api.as(owner.apiKey).post(`${rest}/${script.id}/execute`, { data: { n: 2 } });
    // Assess
    expect(sdkRun.status).toBe(200);
    expect(sdkRun.body.data).toMatchObject({ status: 'completed', output: { label: 'quick', data: { n: 1 } }, logs: ['running quick'] });
    expect(restRun.status).toBe(200);
    expect(restRun.body.data).toMatchObject({ result: { label: 'quick', data: { n: 2 } } });
  });

  it('answers 202 running past the wait, runs on once, and getExecution, the REST read and the run history report its end', async () => {
    // Prepare
    const script: GivenScript = await gatedScript();
    holdUpstream();
    reconfigurePlatform({ RUN_WAIT_SECONDS: '0.2' });
    // Act
    const run = await execute(api, owner, script.id);
    await upstreamReached();
    const whileRunning = await getExecution(run.body.data.executionId);
    release();
    const ended = await waitForEnd(run.body.data.executionId);
    // Assess
    expect(run.status).toBe(202);
    expect(run.body).toEqual({ success: true, data: { executionId: expect.stringMatching(/^exe_/), status: 'running' } });
    expect(whileRunning).toMatchObject({ status: 'running', output: null });
    expect(ended).toMatchObject({ executionId: run.body.data.executionId, status: 'completed', output: { ok: true, released: true }, error: null });
    const restRead = await api.as(owner.apiKey).get(`${rest}/${script.id}/executions/${run.body.data.executionId}`);
    expect(restRead.body.data).toMatchObject({ status: 'success', result: { ok: true, released: true } });
    const history = await api.as(owner.apiKey).get(`/api/sdk/v1/executions?scriptId=${script.id}`);
    expect(history.body.data.executions).toEqual([expect.objectContaining({ executionId: run.body.data.executionId, status: 'completed' })]);
    expect(upstream.received.filter((request) => request.url === '/forecast/Oslo')).toHaveLength(1);
    expect((await api.as(owner.apiKey).post(sdk('getMetrics'), { scriptId: script.id })).body.data).toMatchObject({ totalExecutions: 1, successRate: 1 });
  });

  it('answers the REST execute past the wait with 202 too, and counts the run against the day once', async () => {
    // Prepare
    const script = await gatedScript();
    holdUpstream();
    reconfigurePlatform({ RUN_WAIT_SECONDS: '0.2' });
    // Act
    const run = await api.as(owner.apiKey).post(`${rest}/${script.id}/execute`, { data: {} });
    await upstreamReached();
    release();
    const ended = await waitForEnd(run.body.data.executionId);
    // Assess
    expect(run.status).toBe(202);
    expect(run.body.data).toEqual({ executionId: expect.stringMatching(/^exe_/), status: 'running' });
    expect(ended.status).toBe('completed');
    expect((await api.as(owner.apiKey).get(`${rest}/${script.id}/metrics`)).body.data).toMatchObject({ totalExecutions: 1, executionsToday: 1 });
  });

  it('records a long run that fails as failed with its error', async () => {
    // Prepare
    const script = await gatedScript();
    holdUpstream();
    reconfigurePlatform({ RUN_WAIT_SECONDS: '0.2' });
    // Act
    const run = await execute(api, owner, script.id, { fail: true });
    await upstreamReached();
    release();
    const ended = await waitForEnd(run.body.data.executionId);
    // Assess
    expect(run.status).toBe(202);
    expect(ended).toMatchObject({ status: 'failed', output: null, error: { code: 'SCRIPT_ERROR', message: 'Error: failed after the wait' } });
  });

  it('refuses a run over the daily limit at once, whatever the wait, and starts nothing', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { code: nodeEcho('limited'), config: { maxExecutionsPerDay: 1 } });
    await execute(api, owner, script.id);
    reconfigurePlatform({ RUN_WAIT_SECONDS: '0.2' });
    // Act
    const refused = await execute(api, owner, script.id);
    // Assess
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('DAILY_LIMIT_EXCEEDED');
    expect((await api.as(owner.apiKey).post(sdk('getExecutions'), { scriptId: script.id })).body.data.count).toBe(1);
  });
});

describe('long runs: runFlow', () => {
  it('answers 202 running past the wait and records the flow result when the run ends', async () => {
    // Prepare
    const script = await gatedScript();
    const flow = await givenTimeFlow(api, owner, script.id);
    holdUpstream();
    reconfigurePlatform({ RUN_WAIT_SECONDS: '0.2' });
    // Act
    const run = await api.as(owner.apiKey).post(flowsPath('runFlow'), { assignmentId: flow.id });
    await upstreamReached();
    const whileRunning = await getFlow(api, owner, flow.id);
    release();
    const ended = await vi.waitFor(
      async () => {
        const history = await api.as(owner.apiKey).get(`/api/sdk/v1/executions?flowId=${flow.id}&trigger=manual`);
        expect(history.body.data.executions).toHaveLength(1);
        // The flow run's record exists from its start: wait for its end.
        expect(history.body.data.executions[0].status).not.toBe('running');
        return history.body.data.executions[0];
      },
      { timeout: 20_000, interval: 100 },
    );
    // Assess
    expect(run.status).toBe(202);
    expect(run.body.data).toEqual({ executionId: expect.stringMatching(/^exe_/), status: 'running' });
    expect(whileRunning.executionResults).toEqual([]);
    expect(ended).toMatchObject({ executionId: run.body.data.executionId, kind: 'flow', status: 'completed' });
    const [result] = (await getFlow(api, owner, flow.id)).executionResults;
    expect(result).toMatchObject({ executionId: run.body.data.executionId, status: 'success', result: { ok: true, released: true } });
  });

  it('answers a flow run that ends within the wait synchronously', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { code: nodeEcho('flow') });
    const flow = await givenTimeFlow(api, owner, script.id);
    // Act
    const run = await api.as(owner.apiKey).post(flowsPath('runFlow'), { assignmentId: flow.id });
    // Assess
    expect(run.status).toBe(200);
    expect(run.body.data).toMatchObject({ status: 'success', result: { label: 'flow' } });
  });
});

describe('long runs: the API description', () => {
  it('documents the 202 answer of executeScript, the REST execute and runFlow', async () => {
    // Act
    const document = (await api.request('GET', '/api/sdk/v1/openapi.json')).body;
    // Assess
    for (const [path, method] of [
      [sdk('executeScript'), 'post'],
      [`${rest}/{scriptId}/execute`, 'post'],
      [flowsPath('runFlow'), 'post'],
    ] as const) {
      const accepted = document.paths[path][method].responses['202'];
      expect(accepted.content['application/json'].schema.properties.data).toMatchObject({
        properties: { executionId: { type: 'string' }, status: { type: 'string', enum: ['queued', 'running', 'waiting'] } },
      });
    }
  });
});
