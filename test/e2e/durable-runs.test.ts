// Durable runs over HTTP with real sandboxed workers and DynamoDB Local: steps stored once and replayed, durable
// waits that end the invocation (the run is `waiting` in between), callbacks through the API and the signed URL,
// cancel, re-run from a step and replay. Side effects are calls to a local upstream, counted there.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { type Upstream, givenInstalled, givenPublishedResource, startUpstream } from '../support/resources.js';
import { durableRuns } from '../support/durable-runs.js';
import { givenDeployed, sdk } from '../support/scripts.js';

let api: TestApi;
let upstream: Upstream;
let owner: TestUser;
let resourceName: string;

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
  owner = await api.givenUser();
  resourceName = `side-${Date.now().toString(36)}`;
  const resourceId = await givenPublishedResource(api, owner, { name: resourceName }, { baseUrl: upstream.baseUrl });
  await givenInstalled(api, owner, resourceId);
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

const executions = '/api/sdk/v1/executions';
const getExecution = (executionId: string) => durableRuns(api, owner).getExecution(executionId);
const waitForStatus = (executionId: string, status: string) => durableRuns(api, owner).waitForStatus(executionId, status);
/** Upstream calls carrying `marker` in their path: the side effects of one run. */
const callsWith = (marker: string) => upstream.received.filter((request) => request.url.includes(marker)).length;
const durable = (code: string, runtime = 'nodejs18') =>
  givenDeployed(api, owner, { runtime, code, config: { durable: true, allowedResources: [resourceName] } });

const nodeStepWaitStep = (resource: string) => `export async function handler(event, context) {
  const first = await context.step('charge', async () => {
    const answer = await resources['${resource}'].getForecast({ city: event.data.marker });
    return { charged: true, path: answer.path };
  });
  await context.wait('pause', { seconds: 2 });
  const second = await context.step('confirm', async () => ({ confirmed: first.path }));
  return { first, second };
}`;

const pythonStepWaitStep = (resource: string) => `def handler(event, context):
    def charge():
        answer = resources["${resource}"].getForecast({"city": event["data"]["marker"]})
        return {"charged": True, "path": answer["path"]}
    first = context.step("charge", charge)
    context.wait("pause", seconds=2)
    second = context.step("confirm", lambda: {"confirmed": first["path"]})
    return {"first": first, "second": second}
`;

describe('durable runs: step, wait, step', () => {
  it.each([
    ['node', 'nodejs18', nodeStepWaitStep],
    ['python', 'python3.11', pythonStepWaitStep],
  ])('%s: the first step runs once, the run waits, then finishes with the stored result', async (_label, runtime, code) => {
    // Prepare
    const script = await durable(code(resourceName), runtime);
    const marker = `m${Date.now().toString(36)}${runtime.slice(0, 4)}`;
    // Act
    const started = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: { marker } });
    // Assess
    expect(started.status).toBe(202);
    expect(started.body.data.status).toBe('waiting');
    const { executionId } = started.body.data;
    const waiting = await getExecution(executionId);
    expect(waiting.status).toBe('waiting');
    expect(waiting.steps.map((step: { name: string; type: string; status: string }) => [step.name, step.type, step.status])).toEqual([
      ['charge', 'step', 'succeeded'],
      ['pause', 'wait', 'waiting'],
    ]);
    expect(waiting.steps[1].wakeAt).toEqual(expect.any(String));
    const finished = await waitForStatus(executionId, 'completed');
    expect(finished.output.second).toEqual({ confirmed: finished.output.first.path });
    expect(finished.output.first.path).toContain(marker);
    expect(finished.steps.map((step: { name: string; status: string }) => [step.name, step.status])).toEqual([
      ['charge', 'succeeded'],
      ['pause', 'succeeded'],
      ['confirm', 'succeeded'],
    ]);
    expect(callsWith(marker)).toBe(1);
  });

  it('gives steps: [] on the records of runs of other scripts', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { code: 'export async function handler() { return { ok: true }; }' });
    // Act
    const run = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id });
    // Assess
    expect(run.status).toBe(200);
    expect((await getExecution(run.body.data.executionId)).steps).toEqual([]);
  });
});

/** A script that hands its callback to the upstream (which records it) and returns what the callback brought. */
const callbackScript = (resource: string, timeout = '{ minutes: 5 }') => `export async function handler(event, context) {
  try {
    const reply = await context.waitForCallback('approval', async (callbackId, callbackUrl) => {
      await resources['${resource}'].getForecast({ city: event.data.marker + '~' + callbackId + '~' + encodeURIComponent(callbackUrl) });
    }, { timeout: ${timeout} });
    return { reply };
  } catch (error) {
    return { caught: error.code };
  }
}`;

/** The callback id and URL the run handed to the upstream. */
function handedCallback(marker: string): { callbackId: string; callbackUrl: string } {
  const request = upstream.received.find((candidate) => candidate.url.includes(marker))!;
  const [, callbackId, encodedUrl] = decodeURIComponent(request.url.split('/forecast/')[1]!).split('~');
  return { callbackId: callbackId!, callbackUrl: decodeURIComponent(encodedUrl!) };
}

async function startCallbackRun(timeout?: string) {
  const script = await durable(callbackScript(resourceName, timeout));
  const marker = `cb${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  const started = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: { marker } });
  expect(started.body.data.status).toBe('waiting');
  await vi.waitFor(() => expect(callsWith(marker)).toBe(1), { timeout: 10_000, interval: 50 });
  return { script, executionId: started.body.data.executionId as string, ...handedCallback(marker) };
}

describe('durable runs: waitForCallback', () => {
  it('continues with the result the owner posts to the callback route', async () => {
    // Prepare
    const { executionId, callbackId } = await startCallbackRun();
    // Act
    const answer = await api.as(owner.apiKey).post(`${executions}/${executionId}/callbacks/${callbackId}`, { result: { approved: true } });
    // Assess
    expect(answer.status).toBe(200);
    const finished = await waitForStatus(executionId, 'completed');
    expect(finished.output).toEqual({ reply: { approved: true } });
    expect(finished.steps).toEqual([expect.objectContaining({ name: 'approval', type: 'callback', status: 'succeeded', result: { approved: true } })]);
  });

  it('continues with the result posted to the signed URL without a key, once: a reused or wrong token is refused', async () => {
    // Prepare
    const { executionId, callbackUrl } = await startCallbackRun();
    const path = new URL(callbackUrl).pathname;
    const wrongToken = `${path.slice(0, path.lastIndexOf('/'))}/cbt_${'x'.repeat(43)}`;
    // Act
    const wrong = await api.request('POST', wrongToken, { body: { result: 'forged' } });
    const first = await api.request('POST', path, { body: { result: 'from elsewhere' } });
    const reused = await api.request('POST', path, { body: { result: 'again' } });
    // Assess
    expect(wrong.status).toBe(404);
    expect(wrong.body.error.code).toBe('NOT_FOUND');
    expect(first.status).toBe(200);
    expect(reused.status).toBe(409);
    expect(reused.body.error.code).toBe('CONFLICT');
    const finished = await waitForStatus(executionId, 'completed');
    expect(finished.output).toEqual({ reply: 'from elsewhere' });
  });

  it('throws TIMEOUT into the code when no callback comes in time, and the code catches it', async () => {
    // Prepare
    const { executionId } = await startCallbackRun('{ seconds: 1 }');
    // Act
    const finished = await waitForStatus(executionId, 'completed');
    // Assess
    expect(finished.output).toEqual({ caught: 'TIMEOUT' });
    expect(finished.steps[0]).toMatchObject({ type: 'callback', status: 'failed', error: { code: 'TIMEOUT' } });
  });

  it("refuses another user's callback and a result over the size limit, and changes nothing", async () => {
    // Prepare
    const stranger = await api.givenUser();
    const { executionId, callbackId } = await startCallbackRun();
    // Act
    const foreign = await api.as(stranger.apiKey).post(`${executions}/${executionId}/callbacks/${callbackId}`, { result: 1 });
    const oversized = await api.as(owner.apiKey).post(`${executions}/${executionId}/callbacks/${callbackId}`, { result: 'x'.repeat(300 * 1024) });
    const both = await api.as(owner.apiKey).post(`${executions}/${executionId}/callbacks/${callbackId}`, { result: 1, error: { message: 'no' } });
    // Assess
    expect(foreign.status).toBe(404);
    expect(oversized.status).toBe(400);
    expect(oversized.body.error.code).toBe('VALIDATION_ERROR');
    expect(both.status).toBe(400);
    expect(both.body.error.details.field).toBe('result');
    const unchanged = await getExecution(executionId);
    expect(unchanged.status).toBe('waiting');
    expect(unchanged.steps[0].status).toBe('waiting');
  });
});

describe('durable runs: operating runs', () => {
  it('cancel stops a waiting run: later callbacks are refused', async () => {
    // Prepare
    const { executionId, callbackId } = await startCallbackRun();
    // Act
    const cancelled = await api.as(owner.apiKey).post(`${executions}/${executionId}/cancel`);
    const late = await api.as(owner.apiKey).post(`${executions}/${executionId}/callbacks/${callbackId}`, { result: 1 });
    const again = await api.as(owner.apiKey).post(`${executions}/${executionId}/cancel`);
    // Assess
    expect(cancelled.status).toBe(200);
    expect(cancelled.body.data).toEqual({ executionId, status: 'cancelled' });
    expect(late.status).toBe(409);
    expect(again.status).toBe(409);
    const record = await getExecution(executionId);
    expect(record.status).toBe('cancelled');
    expect(record.steps[0].status).toBe('cancelled');
  });

  it("refuses to cancel another user's run", async () => {
    // Prepare
    const stranger = await api.givenUser();
    const { executionId } = await startCallbackRun();
    // Act
    const refused = await api.as(stranger.apiKey).post(`${executions}/${executionId}/cancel`);
    // Assess
    expect(refused.status).toBe(404);
    expect((await getExecution(executionId)).status).toBe('waiting');
  });

  it('rerun from a step reuses the results of the steps before it; without fromStep every step runs again', async () => {
    // Prepare
    const script = await durable(`export async function handler(event, context) {
  const first = await context.step('first', async () => (await resources['${resourceName}'].getForecast({ city: event.data.marker + '-first' })).path);
  const second = await context.step('second', async () => (await resources['${resourceName}'].getForecast({ city: event.data.marker + '-second' })).path);
  return { first, second };
}`);
    const marker = `re${Date.now().toString(36)}`;
    const original = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: { marker } });
    expect(original.body.data.status).toBe('completed');
    // Act
    const fromSecond = await api.as(owner.apiKey).post(`${executions}/${original.body.data.executionId}/rerun`, { fromStep: 'second' });
    const rerunFromSecond = await waitForStatus(fromSecond.body.data.executionId, 'completed');
    const whole = await api.as(owner.apiKey).post(`${executions}/${original.body.data.executionId}/rerun`, {});
    await waitForStatus(whole.body.data.executionId, 'completed');
    // Assess
    expect(fromSecond.status).toBe(202);
    expect(rerunFromSecond.output).toEqual(original.body.data.output);
    expect(callsWith(`${marker}-first`)).toBe(2);
    expect(callsWith(`${marker}-second`)).toBe(3);
    const record = (await api.as(owner.apiKey).get(`${executions}/${fromSecond.body.data.executionId}`)).body.data;
    expect(record.origin).toEqual({ executionId: original.body.data.executionId, fromStep: 'second' });
    expect(record.steps.map((step: { name: string; kept?: boolean }) => [step.name, step.kept ?? false])).toEqual([
      ['first', true],
      ['second', false],
    ]);
    const wholeRecord = (await api.as(owner.apiKey).get(`${executions}/${whole.body.data.executionId}`)).body.data;
    expect(wholeRecord.origin).toEqual({ executionId: original.body.data.executionId });
  });

  it('refuses a rerun from a step the run does not have, and starts nothing', async () => {
    // Prepare
    const script = await durable(`export async function handler(event, context) { return context.step('only', async () => 1); }`);
    const original = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id });
    // Act
    const refused = await api.as(owner.apiKey).post(`${executions}/${original.body.data.executionId}/rerun`, { fromStep: 'missing' });
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toMatchObject({ field: 'fromStep', value: 'missing' });
    const runs = await api.as(owner.apiKey).post(sdk('getExecutions'), { scriptId: script.id });
    expect(runs.body.data.count).toBe(1);
  });

  it('replay re-runs only the runs that match the filter', async () => {
    // Prepare
    const script = await durable(`export async function handler(event, context) {
  await context.step('call', async () => (await resources['${resourceName}'].getForecast({ city: event.data.marker })).path);
  if (event.data.fail) throw new Error('failed on purpose');
  return { ok: true };
}`);
    const marker = `rp${Date.now().toString(36)}`;
    await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: { marker: `${marker}-ok` } });
    const failed = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: { marker: `${marker}-bad`, fail: true } });
    expect(failed.body.data.status).toBe('failed');
    // Act
    const replayed = await api.as(owner.apiKey).post(`${executions}/replay`, { scriptId: script.id, status: 'failed' });
    // Assess
    expect(replayed.status).toBe(202);
    expect(replayed.body.data.executionIds).toHaveLength(1);
    await waitForStatus(replayed.body.data.executionIds[0], 'failed');
    expect(callsWith(`${marker}-bad`)).toBe(2);
    expect(callsWith(`${marker}-ok`)).toBe(1);
  });
});

describe('durable runs: bad input', () => {
  it.each([
    ['a wait past a year', `await context.wait('long', { days: 366 })`, 'DURABLE_INVALID_ARGUMENT'],
    ['a wait of no time', `await context.wait('none', { seconds: 0 })`, 'DURABLE_INVALID_ARGUMENT'],
    ['an unknown unit', `await context.wait('odd', { weeks: 1 })`, 'DURABLE_INVALID_ARGUMENT'],
    ['a checkpoint around the step API', `await resources['#durable'].wait({ kind: 'teleport', name: 'x', args: {} })`, 'RESOURCE_NOT_ALLOWED'],
    ['a result over the size limit', `await context.step('big', async () => 'x'.repeat(300 * 1024))`, 'DURABLE_RESULT_TOO_LARGE'],
    ['a function as result', `await context.step('fn', async () => ({ run() {} }))`, 'DURABLE_RESULT_NOT_JSON'],
    ['a BigInt as result', `await context.step('big-int', async () => 10n)`, 'DURABLE_RESULT_NOT_JSON'],
    ['NaN as result', `await context.step('nan', async () => NaN)`, 'DURABLE_RESULT_NOT_JSON'],
    ['a name used twice', `await context.step('twice', async () => 1); await context.step('twice', async () => 2)`, 'DURABLE_NAME_REUSED'],
  ])('refuses %s with a clear code the code can catch, and journals nothing for it', async (_what, call, code) => {
    // Prepare
    const script = await durable(`export async function handler(event, context) {
  try {
    ${call};
    return { refused: null };
  } catch (error) {
    return { refused: error.code, message: error.message };
  }
}`);
    // Act
    const run = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id });
    // Assess
    expect(run.body.data.output.refused).toBe(code);
    expect(run.body.data.output.message.length).toBeGreaterThan(10);
    const steps = (await getExecution(run.body.data.executionId)).steps;
    expect(steps.filter((step: { name: string }) => step.name !== 'twice')).toEqual([]);
  });

  it('python: refuses a wait past a year and a non-JSON result with the same codes', async () => {
    // Prepare
    const script = await durable(
      `def handler(event, context):
    codes = []
    try:
        context.wait("long", days=366)
    except Exception as error:
        codes.append(error.code)
    try:
        context.step("set", lambda: {1, 2})
    except Exception as error:
        codes.append(error.code)
    try:
        context.step("nan", lambda: float("nan"))
    except Exception as error:
        codes.append(error.code)
    return {"codes": codes}
`,
      'python3.11',
    );
    // Act
    const run = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id });
    // Assess
    expect(run.body.data.output.codes).toEqual(['DURABLE_INVALID_ARGUMENT', 'DURABLE_RESULT_NOT_JSON', 'DURABLE_RESULT_NOT_JSON']);
    expect((await getExecution(run.body.data.executionId)).steps).toEqual([]);
  });

  it('refuses config.durable that is not a boolean and creates nothing', async () => {
    // Prepare
    const before = await api.as(owner.apiKey).get('/api/sdk/v1/scripts');
    // Act
    const refused = await api.as(owner.apiKey).post('/api/sdk/v1/scripts', { name: 'bad-durable', description: 'x', code: 'x', config: { durable: 'yes' } });
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error.details.field).toBe('config.durable');
    expect((await api.as(owner.apiKey).get('/api/sdk/v1/scripts')).body.data.total).toBe(before.body.data.total);
  });
});

describe('durable runs: determinism warnings at create and deploy', () => {
  it('warns about a clock read outside a step of a durable script, and about none inside one or in a plain script', async () => {
    // Prepare
    const code = `export async function handler(event, context) {
  const startedAt = Date.now();
  const stamp = await context.step('stamp', async () => Date.now());
  return { startedAt, stamp };
}`;
    const create = (name: string, durable: boolean) =>
      api.as(owner.apiKey).post(sdk('createScript'), { name, description: 'clock reads', code, config: { durable } });
    // Act
    const durable = await create('clock-durable', true);
    const deployed = await api.as(owner.apiKey).post(sdk('deployScript'), { scriptId: durable.body.data.id });
    const plain = await create('clock-plain', false);
    // Assess
    const warning = { line: 2, message: expect.stringContaining('Date.now() outside a step'), suggestion: expect.stringContaining('context.step') };
    expect(durable.body.data.warnings).toEqual([warning]);
    expect(deployed.body.data.warnings).toEqual([warning]);
    expect(plain.body.data).not.toHaveProperty('warnings');
  });
});

describe('failed runs: platform.execution.failed', () => {
  it("delivers the owner's failed-run event to a subscription on it, once per failed run", async () => {
    // Prepare
    const marker = `fl${Date.now().toString(36)}`;
    const alert = await givenDeployed(api, owner, {
      config: { allowedResources: [resourceName] },
      code: `export async function handler(event) {
  await resources['${resourceName}'].getForecast({ city: '${marker}~' + event.data.data.executionId + '~' + event.data.data.error.code });
  return { alerted: true };
}`,
    });
    const subscribed = await api.as(owner.apiKey).post(`/api/sdk/v1/scripts/${alert.id}/subscriptions`, { eventType: 'platform.execution.failed' });
    expect(subscribed.status).toBe(201);
    const failing = await givenDeployed(api, owner, { code: "export async function handler() { throw new Error('broken on purpose'); }" });
    // Act
    const failed = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: failing.id });
    // Assess
    expect(failed.body.data.status).toBe('failed');
    await vi.waitFor(() => expect(callsWith(`${marker}~${failed.body.data.executionId}~SCRIPT_ERROR`)).toBe(1), { timeout: 15_000, interval: 100 });
  });
});
