// Running scripts over HTTP in real node and python3 worker processes: results, logs, the handler convention,
// failures that are recorded while the platform keeps serving, limits, history and metrics.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { platform } from '../../functions/app/platform.js';
import { manualRunsBucket } from '../../functions/scripts/runs/runner.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { type Upstream, givenInstalled, givenPublishedResource, startUpstream } from '../support/resources.js';
import { execute, givenDeployed, givenScript, nodeEcho, pythonEcho, rest, sdk } from '../support/scripts.js';

let api: TestApi;
let upstream: Upstream;
let owner: TestUser;

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
  owner = await api.givenUser();
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

const history = async (scriptId: string, query = '') => (await api.as(owner.apiKey).get(`${rest}/${scriptId}/executions${query}`)).body.data;

describe('scripts: executing', () => {
  it('runs a node script with event data and context, returning output, logs, duration and memory', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { code: nodeEcho('node') });
    // Act
    const sdkRun = await execute(api, owner, script.id, { city: 'Oslo' });
    const restRun = await api.as(owner.apiKey).post(`${rest}/${script.id}/execute`, { data: { city: 'Lima' } });
    // Assess
    expect(sdkRun.status).toBe(200);
    expect(sdkRun.body.data).toEqual({
      executionId: expect.stringMatching(/^exe_/),
      scriptId: script.id,
      status: 'completed',
      output: { label: 'node', data: { city: 'Oslo' }, trigger: 'manual', scriptId: script.id },
      duration: expect.any(Number),
      logs: ['running node'],
      logLines: [{ text: 'running node', invocation: 1 }],
      error: null,
      createdAt: expect.any(String),
      steps: [],
    });
    expect(restRun.status).toBe(200);
    expect(restRun.body.data).toEqual({
      executionId: expect.stringMatching(/^exe_/),
      result: expect.objectContaining({ data: { city: 'Lima' } }),
      duration: expect.any(Number),
      memoryUsed: expect.any(Number),
      cost: expect.any(Number),
    });
    expect(restRun.body.data.memoryUsed).toBeGreaterThan(0);
    expect(restRun.body.data.cost).toBeGreaterThan(0);
  });

  it('runs a python script the same way', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { runtime: 'python3.11', code: pythonEcho('py') });
    // Act
    const run = await execute(api, owner, script.id, { n: 1 });
    // Assess
    expect(run.body.data).toMatchObject({
      status: 'completed',
      output: { label: 'py', data: { n: 1 }, trigger: 'manual', scriptId: script.id },
      logs: ['running py'],
      error: null,
    });
  });

  it('lets the key returned at creation execute the script, and nothing else', async () => {
    // Prepare
    const script = await givenDeployed(api, owner);
    // Act
    const run = await api.request('POST', sdk('executeScript'), { body: { scriptId: script.id }, headers: { 'x-api-key': script.apiKey } });
    const remove = await api.request('POST', sdk('deleteScript'), { body: { scriptId: script.id }, headers: { 'x-api-key': script.apiKey } });
    // Assess
    expect(run.status).toBe(200);
    expect(remove.status).toBe(403);
    expect((await api.as(owner.apiKey).post(sdk('getScript'), { scriptId: script.id })).status).toBe(200);
  });

  it('test-runs the latest version of a never-deployed script', async () => {
    // Prepare
    const script = await givenScript(api, owner, { code: nodeEcho('draft') });
    // Act
    const run = await execute(api, owner, script.id);
    // Assess
    expect(run.body.data).toMatchObject({ status: 'completed', output: { label: 'draft' } });
    expect((await api.as(owner.apiKey).post(sdk('getScript'), { scriptId: script.id })).body.data).toMatchObject({
      deploymentStatus: 'pending',
      activeVersion: null,
      totalExecutions: 1,
    });
  });
});

describe('scripts: the handler return convention', () => {
  it('records {success: false, noOp: true} as a successful run and {success: false, reason} as a failed one', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, {
      code: 'export async function handler(event) { return event.data.noOp ? { success: false, noOp: true, reason: "nothing new" } : { success: false, reason: "upstream down" }; }',
    });
    // Act
    const noOp = await execute(api, owner, script.id, { noOp: true });
    const failure = await execute(api, owner, script.id, { noOp: false });
    // Assess
    expect(noOp.body.data).toMatchObject({ status: 'completed', error: null, output: { success: false, noOp: true } });
    expect(failure.body.data).toMatchObject({
      status: 'failed',
      error: { code: 'SCRIPT_FAILURE', message: 'upstream down' },
      output: { success: false, reason: 'upstream down' },
    });
    expect((await api.as(owner.apiKey).post(sdk('getMetrics'), { scriptId: script.id })).body.data).toMatchObject({
      totalExecutions: 2,
      successRate: 0.5,
      errorRate: 0.5,
    });
  });
});

describe('scripts: failing runs are recorded and the platform keeps serving', () => {
  const cases = [
    {
      what: 'throws',
      runtime: 'nodejs18',
      code: 'export async function handler() {\n  const x = 1;\n  throw new Error("boom");\n}',
      status: 'failed',
      error: { code: 'SCRIPT_ERROR', message: 'Error: boom', line: 3 },
    },
    {
      what: 'raises',
      runtime: 'python3.11',
      code: 'def handler(event, context):\n    x = 1\n    raise ValueError("nope")\n',
      status: 'failed',
      error: { code: 'SCRIPT_ERROR', message: 'ValueError: nope', line: 3 },
    },
    {
      what: 'times out',
      runtime: 'nodejs18',
      code: 'async function handler() { for (;;) {} }',
      config: { timeout: 1 },
      status: 'failed',
      error: { code: 'TIMEOUT' },
    },
    {
      what: 'exceeds its memory',
      runtime: 'nodejs18',
      code: 'const kept = []; async function handler() { for (;;) kept.push(Buffer.alloc(1 << 20, 1)); }',
      status: 'failed',
      error: { code: 'MEMORY_LIMIT_EXCEEDED' },
    },
    {
      what: 'exceeds its memory (python)',
      runtime: 'python3.11',
      code: 'kept = []\ndef handler(event, context):\n    while True:\n        kept.append(bytearray(1 << 20))\n',
      status: 'failed',
      error: { code: 'MEMORY_LIMIT_EXCEEDED' },
    },
    {
      what: 'prints 10 MB',
      runtime: 'nodejs18',
      code: 'async function handler() { const line = "x".repeat(1000); for (let i = 0; i < 10000; i++) console.log(line); return "done"; }',
      status: 'failed',
      error: { code: 'LOG_LIMIT_EXCEEDED' },
    },
    {
      what: 'returns more than 6 MB',
      runtime: 'python3.11',
      code: 'def handler(event, context):\n    return "x" * (7 * 1024 * 1024)\n',
      status: 'failed',
      error: { code: 'RESPONSE_TOO_LARGE' },
    },
  ];
  for (const { what, runtime, code, config, status, error } of cases) {
    it(`records a script that ${what} as failed with the reason`, async () => {
      // Prepare
      const script = await givenDeployed(api, owner, { runtime, code, config });
      // Act
      const run = await execute(api, owner, script.id);
      const recorded = await api.as(owner.apiKey).post(sdk('getExecution'), { executionId: run.body.data.executionId });
      const health = await api.request('GET', '/api/sdk/v1/health');
      // Assess
      expect(run.status).toBe(200);
      expect(run.body.data).toMatchObject({ status, error, output: null });
      expect(recorded.body.data).toMatchObject({ status, error });
      expect(health.status).toBe(200);
    });
  }

  it('answers a REST run that timed out with TIMEOUT and one that threw with EXECUTION_FAILED, both recorded', async () => {
    // Prepare
    const slow = await givenDeployed(api, owner, { code: 'async function handler() { await new Promise(() => {}); }', config: { timeout: 1 } });
    const broken = await givenDeployed(api, owner, { code: 'async function handler() { null.x; }' });
    // Act
    const timedOut = await api.as(owner.apiKey).post(`${rest}/${slow.id}/execute`, {});
    const failed = await api.as(owner.apiKey).post(`${rest}/${broken.id}/execute`, {});
    // Assess
    expect(timedOut.status).toBe(504);
    expect(timedOut.body.error).toMatchObject({ code: 'TIMEOUT', details: { executionId: expect.stringMatching(/^exe_/) } });
    expect(failed.status).toBe(422);
    expect(failed.body.error).toMatchObject({ code: 'EXECUTION_FAILED', details: { error: { code: 'SCRIPT_ERROR', line: 1 } } });
    expect((await history(slow.id)).executions).toEqual([expect.objectContaining({ status: 'timeout' })]);
  });
});

describe('scripts: limits', () => {
  it('stops runs past maxExecutionsPerDay with DAILY_LIMIT_EXCEEDED until UTC midnight, recording nothing more', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { config: { maxExecutionsPerDay: 2 } });
    await execute(api, owner, script.id);
    await execute(api, owner, script.id);
    // Act
    const refused = await execute(api, owner, script.id);
    // Assess
    const midnight = Math.ceil(Date.now() / 86_400_000) * 86_400_000;
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: 'DAILY_LIMIT_EXCEEDED', details: { maxExecutionsPerDay: 2 } });
    expect(Number(refused.headers.get('retry-after'))).toBeLessThanOrEqual(Math.ceil((midnight - Date.now()) / 1000) + 1);
    expect((await history(script.id)).total).toBe(2);
    expect((await api.as(owner.apiKey).get(`${rest}/${script.id}/metrics`)).body.data).toMatchObject({ totalExecutions: 2, executionsToday: 2 });
  });

  it('allows 100 manual runs a minute per script and answers the next with RATE_LIMITED', async () => {
    // Prepare
    const script = await givenDeployed(api, owner);
    for (let i = 0; i < 100; i++) await platform().rateLimiter.hit(manualRunsBucket(script.id), 100, 60);
    // Act
    const refused = await execute(api, owner, script.id);
    // Assess
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect((await history(script.id)).total).toBe(0);
  });

  it('fails a run that costs more than maxCostPerExecution with COST_LIMIT_EXCEEDED and records it', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, {
      code: 'async function handler() { const end = Date.now() + 200; while (Date.now() < end); return "done"; }',
      config: { maxCostPerExecution: 0.00000001 },
    });
    // Act
    const run = await execute(api, owner, script.id);
    // Assess
    expect(run.status).toBe(422);
    expect(run.body.error).toMatchObject({ code: 'COST_LIMIT_EXCEEDED', details: { executionId: expect.stringMatching(/^exe_/) } });
    expect((await history(script.id)).executions).toEqual([expect.objectContaining({ status: 'error' })]);
  });

  it("refuses runs once the month's spend reaches monthlyBudgetUsd with BUDGET_EXCEEDED", async () => {
    // Prepare
    const frugal = await api.givenUser();
    const script = await givenDeployed(api, frugal);
    await api.as(frugal.apiKey).patch('/api/sdk/v1/me', { monthlyBudgetUsd: 0 });
    // Act
    const refused = await execute(api, frugal, script.id);
    // Assess
    expect(refused.status).toBe(422);
    expect(refused.body.error).toMatchObject({ code: 'BUDGET_EXCEEDED', details: { monthlyBudgetUsd: 0 } });
    expect((await api.as(frugal.apiKey).get(`${rest}/${script.id}/executions`)).body.data.total).toBe(0);
  });
});

describe('scripts: history and metrics', () => {
  it('filters history by status and dates in both shapes, newest first, with REST and SDK status names', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, {
      code: 'export async function handler(event) { if (event.data.fail) throw new Error("no"); return event.data.n; }',
    });
    const first = await execute(api, owner, script.id, { n: 1 });
    const failed = await execute(api, owner, script.id, { fail: true });
    const third = await execute(api, owner, script.id, { n: 3 });
    const since = encodeURIComponent(failed.body.data.createdAt);
    // Act
    const restAll = await history(script.id);
    const restErrors = await history(script.id, '?status=error');
    const restSince = await history(script.id, `?startDate=${since}&limit=1`);
    const sdkCompleted = await api.as(owner.apiKey).post(sdk('getExecutions'), { scriptId: script.id, status: 'completed' });
    const sdkBefore = await api.as(owner.apiKey).post(sdk('getExecutions'), { scriptId: script.id, endDate: first.body.data.createdAt });
    // Assess
    expect(restAll).toMatchObject({ total: 3, limit: 10, offset: 0 });
    expect(restAll.executions.map((run: { executionId: string }) => run.executionId)).toEqual([third, failed, first].map((run) => run.body.data.executionId));
    expect(restAll.executions[0]).toEqual({
      executionId: third.body.data.executionId,
      status: 'success',
      duration: expect.any(Number),
      memoryUsed: expect.any(Number),
      cost: expect.any(Number),
      timestamp: third.body.data.createdAt,
      trigger: 'manual',
      steps: [],
    });
    expect(restErrors).toMatchObject({ total: 1, executions: [{ executionId: failed.body.data.executionId, status: 'error' }] });
    expect(restSince).toMatchObject({ total: 2, limit: 1, executions: [{ executionId: third.body.data.executionId }] });
    expect(sdkCompleted.body.data).toEqual({
      scriptId: script.id,
      count: 2,
      executions: [third, first].map((run) => ({
        executionId: run.body.data.executionId,
        scriptId: script.id,
        status: 'completed',
        duration: expect.any(Number),
        createdAt: run.body.data.createdAt,
        hasError: false,
        steps: [],
      })),
    });
    expect(sdkBefore.body.data.executions.map((run: { executionId: string }) => run.executionId)).toEqual([first.body.data.executionId]);
  });

  it('reads ISO 8601 dates with any offset or as whole days, and refuses a range that ends before it starts', async () => {
    // Prepare
    const script = await givenDeployed(api, owner);
    const run = await execute(api, owner, script.id);
    const ranAt = Date.parse(run.body.data.createdAt);
    const inPlusTwo = (ms: number) => new Date(ms + 2 * 3_600_000).toISOString().replace('Z', '+02:00');
    const day = run.body.data.createdAt.slice(0, 10);
    const ids = (data: { executions: Array<{ executionId: string }> }) => data.executions.map((execution) => execution.executionId);
    // Act
    const sinceAMinuteBefore = await history(script.id, `?startDate=${encodeURIComponent(inPlusTwo(ranAt - 60_000))}`);
    const sinceAMinuteAfter = await history(script.id, `?startDate=${encodeURIComponent(inPlusTwo(ranAt + 60_000))}`);
    const thatDay = await api.as(owner.apiKey).post(sdk('getExecutions'), { scriptId: script.id, startDate: day, endDate: day });
    const invertedRest = await api.as(owner.apiKey).get(`${rest}/${script.id}/executions?startDate=2025-01-02T00:00:00Z&endDate=2025-01-01T00:00:00Z`);
    const sdkInverted = await api.as(owner.apiKey).post(sdk('getExecutions'), { scriptId: script.id, startDate: '2025-01-02', endDate: '2025-01-01' });
    // Assess
    expect(ids(sinceAMinuteBefore)).toEqual([run.body.data.executionId]);
    expect(ids(sinceAMinuteAfter)).toEqual([]);
    expect(ids(thatDay.body.data)).toEqual([run.body.data.executionId]);
    expect(invertedRest.status).toBe(400);
    expect(invertedRest.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'endDate', value: '2025-01-01T00:00:00Z' } });
    expect(sdkInverted.status).toBe(400);
    expect(sdkInverted.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'endDate', value: '2025-01-01' } });
  });

  it('lists a run that is still going as running, and as completed once it ends', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, {
      code: 'export async function handler() { await new Promise((resolve) => setTimeout(resolve, 2500)); return "slow"; }',
    });
    const running = () => api.as(owner.apiKey).post(sdk('getExecutions'), { scriptId: script.id, status: 'running' });
    // Act
    const run = execute(api, owner, script.id);
    await vi.waitFor(async () => expect((await running()).body.data.count).toBe(1), { timeout: 10_000, interval: 200 });
    const finished = await run;
    // Assess
    expect(finished.body.data).toMatchObject({ status: 'completed', output: 'slow' });
    expect((await running()).body.data.count).toBe(0);
    expect((await api.as(owner.apiKey).post(sdk('getExecutions'), { scriptId: script.id, status: 'completed' })).body.data.executions).toEqual([
      expect.objectContaining({ executionId: finished.body.data.executionId, status: 'completed' }),
    ]);
  });

  it('reports metrics as a percentage in REST and as 0-1 in the SDK, and totals in getScript', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { code: 'export async function handler(event) { if (event.data.fail) throw new Error("no"); return 1; }' });
    await execute(api, owner, script.id);
    await execute(api, owner, script.id);
    await execute(api, owner, script.id);
    await execute(api, owner, script.id, { fail: true });
    // Act
    const restMetrics = await api.as(owner.apiKey).get(`${rest}/${script.id}/metrics`);
    const sdkMetrics = await api.as(owner.apiKey).post(sdk('getMetrics'), { scriptId: script.id });
    const read = await api.as(owner.apiKey).post(sdk('getScript'), { scriptId: script.id });
    // Assess
    expect(restMetrics.body.data).toEqual({
      totalExecutions: 4,
      successRate: 75,
      averageDuration: expect.any(Number),
      totalCost: expect.any(Number),
      executionsToday: 4,
      lastExecutedAt: expect.any(String),
    });
    expect(sdkMetrics.body.data).toEqual({
      scriptId: script.id,
      totalExecutions: 4,
      totalCost: restMetrics.body.data.totalCost,
      avgDuration: expect.any(Number),
      successRate: 0.75,
      errorRate: 0.25,
      lastExecutedAt: expect.any(String),
    });
    expect(read.body.data).toMatchObject({ totalExecutions: 4, errorRate: 0.25, totalCost: restMetrics.body.data.totalCost });
    expect(restMetrics.body.data.totalCost).toBeGreaterThan(0);
  });
});

describe('scripts: calling resources', () => {
  it('calls a resource its owner installed and authenticated, gets its data, and adds the call to the cost', async () => {
    // Prepare
    const publisher = await api.givenUser();
    const name = `forecast-${Date.now().toString(36)}`;
    const resourceId = await givenPublishedResource(api, publisher, { name }, { baseUrl: upstream.baseUrl, authentication: 'api_key' });
    await givenInstalled(api, owner, resourceId);
    await api.as(owner.apiKey).post(`/api/sdk/v1/resources/${resourceId}/authenticate`, { type: 'api_key', credentials: { apiKey: 'owner-secret' } });
    const node = await givenDeployed(api, owner, {
      config: { allowedResources: [name] },
      code: `export async function handler(event) { return await resources['${name}'].getForecast({ city: event.data.city }); }`,
    });
    const python = await givenDeployed(api, owner, {
      runtime: 'python3.11',
      config: { allowedResources: [name] },
      code: `def handler(event, context):\n    return resources['${name}'].getForecast({"city": event["data"]["city"]})\n`,
    });
    // Act
    const fromNode = await api.as(owner.apiKey).post(`${rest}/${node.id}/execute`, { data: { city: 'Oslo' } });
    const fromPython = await api.as(owner.apiKey).post(`${rest}/${python.id}/execute`, { data: { city: 'Lima' } });
    // Assess
    expect(fromNode.body.data.result).toEqual({ ok: true, path: '/forecast/Oslo' });
    expect(fromPython.body.data.result).toEqual({ ok: true, path: '/forecast/Lima' });
    expect(upstream.received.at(-1)!.headers['x-api-key']).toBe('owner-secret');
    expect(fromNode.body.data.cost).toBeGreaterThan(0.01);
    expect(fromNode.body.data.cost).toBeLessThan(0.011);
  });

  it('refuses resources outside config.allowedResources inside the script, calling nothing', async () => {
    // Prepare
    const calls = upstream.received.length;
    const script = await givenDeployed(api, owner, {
      code: 'export async function handler() { try { await resources.anything.get({}); return "called"; } catch (error) { return error.code; } }',
    });
    // Act
    const run = await execute(api, owner, script.id);
    // Assess
    expect(run.body.data.output).toBe('RESOURCE_NOT_ALLOWED');
    expect(upstream.received.length).toBe(calls);
  });
});
