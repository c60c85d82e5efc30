// Admission of script runs over HTTP with real sandboxed workers: the interface's 10 runs per script for each kind of
// trigger (a manual run past them is refused, an event's or a flow's waits its turn), and `config.concurrency`
// (at most `limit` runs per key value; runs past it wait, fairly across key values). Each script holds its run on
// a resource call to a local upstream, which answers when the test says.
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sampleInput } from '../support/event-samples.js';
import { flowsPath, givenTimeFlow } from '../support/flows.js';
import { waitFor } from '../support/local-start.js';
import { type ApiResponse, type TestApi, type TestUser, reconfigurePlatform, startTestPlatform } from '../support/platform.js';
import { type ReceivedRequest, type Upstream, givenInstalled, givenPublishedResource, json, startUpstream } from '../support/resources.js';
import { givenDeployed, givenScript, nodeEcho, rest, sdk } from '../support/scripts.js';

let api: TestApi;
let upstream: Upstream;
let owner: TestUser;
let resourceName: string;
/** Calls the upstream holds, with the key value each run sent (`city`). */
let held: Array<{ key: string; response: ServerResponse }> = [];

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
  owner = await api.givenUser();
  resourceName = `held-${Date.now().toString(36)}`;
  const resourceId = await givenPublishedResource(api, owner, { name: resourceName }, { baseUrl: upstream.baseUrl });
  await givenInstalled(api, owner, resourceId);
});
afterEach(() => {
  reconfigurePlatform({ RUN_WAIT_SECONDS: undefined });
  answerAll();
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

/** The value the run sent as the forecast's city: `/forecast/<city>`. */
const keyOf = (request: ReceivedRequest) => decodeURIComponent(new URL(request.url, 'http://upstream').pathname.split('/').at(-1) ?? '');

function holdUpstream() {
  upstream.respond((request, response) => held.push({ key: keyOf(request), response }));
}

/** Answers what is held and every call from now on. */
function answerAll() {
  upstream.respond((_request, response) => json(response, 200, { ok: true }));
  for (const { response } of held) json(response, 200, { ok: true });
  held = [];
}

/** A script whose run waits on the upstream, sending `event.data.customer` (or `event.data`'s type) along. */
const givenHeldScript = (config: Record<string, unknown> = {}) =>
  givenDeployed(api, owner, {
    config: { allowedResources: [resourceName], ...config },
    code: `export async function handler(event) { return await resources['${resourceName}'].getForecast({ city: String(event.data.customer ?? event.data.type ?? '') }); }`,
  });

/** Reads until `done` says so (runs end asynchronously). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const succeeded = (runs: Array<{ status: string }>) => runs.filter((run) => run.status === 'success').length;

const executionsOf = async (scriptId: string) =>
  (await api.as(owner.apiKey).get(`${rest}/${scriptId}/executions?limit=100`)).body.data.executions as Array<{ status: string }>;

describe('scripts: the 10 runs of a script, for every trigger', () => {
  it('refuses an 11th manual run (REST and SDK) with CONCURRENCY_LIMIT and records nothing for it', async () => {
    // Prepare
    holdUpstream();
    const script = await givenHeldScript();
    const ten = Array.from({ length: 10 }, () => api.as(owner.apiKey).post(`${rest}/${script.id}/execute`, { data: {} }));
    await waitFor(() => held.length === 10, '10 runs held');
    // Act
    const [restEleventh, sdkEleventh] = await Promise.all([
      api.as(owner.apiKey).post(`${rest}/${script.id}/execute`, { data: {} }),
      api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: {} }),
    ]);
    const recordedWhileFull = (await executionsOf(script.id)).length;
    answerAll();
    const answers = await Promise.all(ten);
    // Assess
    for (const refused of [restEleventh, sdkEleventh]) {
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ code: 'CONCURRENCY_LIMIT', details: { scriptId: script.id } });
      expect(refused.headers.get('retry-after')).toBeTruthy();
    }
    expect(recordedWhileFull).toBe(10);
    expect(answers.map((answer) => answer.status)).toEqual(Array(10).fill(200));
    expect(await executionsOf(script.id)).toHaveLength(10);
  }, 120_000);

  it("runs an event's run past the 10 once a slot frees, instead of refusing it", async () => {
    // Prepare
    holdUpstream();
    const script = await givenHeldScript();
    const subscribed = await api.as(owner.apiKey).post(`/api/sdk/v1/scripts/${script.id}/subscriptions`, { eventType: 'chatapp.message', conditions: [] });
    expect(subscribed.status).toBe(201);
    // Act
    for (let index = 0; index < 12; index++) expect((await api.as(owner.apiKey).post('/api/sdk/v1/events', sampleInput('chatapp.message'))).status).toBe(202);
    await waitFor(() => held.length === 10, '10 runs held');
    const heldAtOnce = held.length;
    answerAll();
    const runs = await until(
      () => executionsOf(script.id),
      (found) => succeeded(found) === 12,
      '12 successful runs',
    );
    // Assess
    expect(heldAtOnce).toBe(10);
    expect(runs).toHaveLength(12);
  }, 120_000);

  it("runs a flow's script run past the 10 once a slot frees, instead of refusing it", async () => {
    // Prepare: two flows of one script (each under its own 10), six runs each.
    holdUpstream();
    const script = await givenHeldScript();
    const flows = await Promise.all([givenTimeFlow(api, owner, script.id), givenTimeFlow(api, owner, script.id)]);
    reconfigurePlatform({ RUN_WAIT_SECONDS: '0.2' });
    // Act
    const answers: ApiResponse[] = await Promise.all(
      flows.flatMap((flow) => Array.from({ length: 6 }, () => api.as(owner.apiKey).post(flowsPath('runFlow'), { assignmentId: flow.id }))),
    );
    await waitFor(() => held.length === 10, '10 runs held');
    const heldAtOnce = held.length;
    answerAll();
    const results = await Promise.all(
      flows.map((flow) =>
        until(
          async () =>
            (await api.as(owner.apiKey).post(flowsPath('getFlow'), { assignmentId: flow.id })).body.data.executionResults as Array<{ status: string }>,
          (found) => found.length === 6,
          'six results of the flow',
        ),
      ),
    );
    // Assess
    expect(heldAtOnce).toBe(10);
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(202));
    expect(results.map(succeeded)).toEqual([6, 6]);
  }, 120_000);
});

describe('scripts: config.concurrency, runs per key value', () => {
  it('refuses a bad config.concurrency on create (REST and SDK) and update with the field and value, changing nothing', async () => {
    // Prepare
    const script = await givenScript(api, owner, { config: { concurrency: { limit: 2, key: 'customer.id' } } });
    const before = (await api.as(owner.apiKey).post(sdk('listScripts'), {})).body.data.count;
    const bad = [
      { concurrency: { limit: 0, key: 'customerId' }, field: 'config.concurrency.limit', value: 0 },
      { concurrency: { limit: 11, key: 'customerId' }, field: 'config.concurrency.limit', value: 11 },
      { concurrency: { limit: 1.5, key: 'customerId' }, field: 'config.concurrency.limit', value: 1.5 },
      { concurrency: { limit: '2', key: 'customerId' }, field: 'config.concurrency.limit', value: '2' },
      { concurrency: { limit: 2, key: '' }, field: 'config.concurrency.key', value: '' },
      { concurrency: { limit: 2, key: 'customer..id' }, field: 'config.concurrency.key', value: 'customer..id' },
      { concurrency: { limit: 2, key: 'customer id' }, field: 'config.concurrency.key', value: 'customer id' },
      { concurrency: { limit: 2, key: 'a'.repeat(201) }, field: 'config.concurrency.key', value: 'a'.repeat(201) },
      { concurrency: { limit: 2 }, field: 'config.concurrency.key' },
      { concurrency: { limit: 2, key: 'customerId', per: 'minute' }, field: 'config.concurrency.per', value: 'minute' },
      { concurrency: 'customerId', field: 'config.concurrency', value: 'customerId' },
    ];
    // Act
    const answers = await Promise.all(
      bad.flatMap(({ concurrency }) => [
        api.as(owner.apiKey).post(rest, { name: 'x', code: nodeEcho('x'), config: { concurrency } }),
        api.as(owner.apiKey).post(sdk('createScript'), { name: 'x', code: nodeEcho('x'), config: { concurrency } }),
        api.as(owner.apiKey).patch(`${rest}/${script.id}`, { config: { concurrency } }),
      ]),
    );
    // Assess
    answers.forEach((answer, index) => {
      const { field, value } = bad[Math.floor(index / 3)]!;
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, ...(value !== undefined && { value }) } });
    });
    expect((await api.as(owner.apiKey).post(sdk('listScripts'), {})).body.data.count).toBe(before);
    expect((await api.as(owner.apiKey).get(`${rest}/${script.id}`)).body.data.config.concurrency).toEqual({ limit: 2, key: 'customer.id' });
  });

  it('keeps config.concurrency on create and update, and removes it with null', async () => {
    // Prepare
    const script = await givenScript(api, owner, { config: { concurrency: { limit: 3, key: 'customerId' } } });
    // Act
    const created = (await api.as(owner.apiKey).get(`${rest}/${script.id}`)).body.data.config;
    const changed = (await api.as(owner.apiKey).patch(`${rest}/${script.id}`, { config: { concurrency: { limit: 1, key: 'order.region' } } })).body.data.config;
    const kept = (await api.as(owner.apiKey).patch(`${rest}/${script.id}`, { config: { timeout: 20 } })).body.data.config;
    const removed = (await api.as(owner.apiKey).patch(`${rest}/${script.id}`, { config: { concurrency: null } })).body.data.config;
    // Assess
    expect(created.concurrency).toEqual({ limit: 3, key: 'customerId' });
    expect(changed.concurrency).toEqual({ limit: 1, key: 'order.region' });
    expect(kept).toMatchObject({ timeout: 20, concurrency: { limit: 1, key: 'order.region' } });
    expect(removed.concurrency).toBeUndefined();
  });

  it('runs 30 runs over 3 key values with limit 2 never more than 2 of a value at once, and all of them', async () => {
    // Prepare: the upstream counts each value's calls in progress as they arrive.
    const inProgress = new Map<string, number>();
    const peaks = new Map<string, number>();
    upstream.respond((request, response) => {
      const key = keyOf(request);
      inProgress.set(key, (inProgress.get(key) ?? 0) + 1);
      peaks.set(key, Math.max(peaks.get(key) ?? 0, inProgress.get(key)!));
      held.push({ key, response });
    });
    const script = await givenHeldScript({ concurrency: { limit: 2, key: 'customer' } });
    // Act
    const executes = Array.from({ length: 30 }, (_, index) =>
      api.as(owner.apiKey).post(`${rest}/${script.id}/execute`, { data: { customer: `customer-${index % 3}` } }),
    );
    await waitFor(() => held.length === 6, 'two runs of each value');
    for (let answered = 0; answered < 30; answered++) {
      await waitFor(() => held.length > 0, 'a run to answer');
      const { key, response } = held.shift()!;
      inProgress.set(key, inProgress.get(key)! - 1);
      json(response, 200, { ok: true });
    }
    await Promise.all(executes);
    const runs = await until(
      () => executionsOf(script.id),
      (found) => succeeded(found) === 30,
      '30 successful runs',
    );
    // Assess
    expect(Object.fromEntries(peaks)).toEqual({ 'customer-0': 2, 'customer-1': 2, 'customer-2': 2 });
    expect(runs).toHaveLength(30);
  }, 180_000);

  it('starts a run of another key value while one value has 20 runs waiting', async () => {
    // Prepare
    holdUpstream();
    const script = await givenHeldScript({ concurrency: { limit: 2, key: 'customer' } });
    const busy = Array.from({ length: 22 }, () => api.as(owner.apiKey).post(`${rest}/${script.id}/execute`, { data: { customer: 'busy' } }));
    await waitFor(() => held.length === 2, 'two runs of the busy value');
    await until(
      () => executionsOf(script.id),
      (found) => found.length === 22,
      'the 22 runs recorded',
    );
    // Act
    const other = api.as(owner.apiKey).post(`${rest}/${script.id}/execute`, { data: { customer: 'quiet' } });
    await waitFor(() => held.some(({ key }) => key === 'quiet'), 'the run of the other value');
    const busyHeld = held.filter(({ key }) => key === 'busy').length;
    answerAll();
    await Promise.all([...busy, other]);
    // Assess
    expect(busyHeld).toBe(2);
    expect(
      succeeded(
        await until(
          () => executionsOf(script.id),
          (found) => succeeded(found) === 23,
          '23 successful runs',
        ),
      ),
    ).toBe(23);
  }, 180_000);

  it('answers a run waiting for its key value past the bound with 202 running, and runs it when its turn comes', async () => {
    // Prepare
    holdUpstream();
    reconfigurePlatform({ RUN_WAIT_SECONDS: '0.2' });
    const script = await givenHeldScript({ concurrency: { limit: 1, key: 'customer' } });
    const first = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: { customer: 'acme' } });
    await waitFor(() => held.length === 1, 'the first run held');
    // Act
    const queued = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: { customer: 'acme' } });
    const heldWhileQueued = held.length;
    answerAll();
    const ended = await until(
      async () => (await api.as(owner.apiKey).post(sdk('getExecution'), { executionId: queued.body.data.executionId })).body.data,
      (execution) => execution.status !== 'running',
      'the queued run to end',
    );
    // Assess
    expect(first.status).toBe(202);
    expect(queued.status).toBe(202);
    expect(queued.body.data).toMatchObject({ executionId: expect.stringMatching(/^exe_/), status: 'running' });
    expect(heldWhileQueued).toBe(1);
    expect(ended.status).toBe('completed');
  }, 120_000);
});
