// Admission of script runs over HTTP with real sandboxed workers: the interface's 10 runs per script for each kind of
// trigger (a manual run past them is refused, an event's or a flow's waits its turn), and `config.concurrency`
// (at most `limit` runs per key value; runs past it wait, fairly across key values). Each script holds its run on
// a resource call to a local upstream, which answers when the test says.
import { describe, expect, it } from 'vitest';
import { sampleInput } from '../support/event-samples.js';
import { flowsPath, givenTimeFlow } from '../support/flows.js';
import { waitFor } from '../support/local-start.js';
import { type ApiResponse, reconfigurePlatform } from '../support/platform.js';
import { heldRunWorld, json, lastSegmentOf } from '../support/resources.js';
import { givenDeployed, givenScript, nodeEcho, rest, sdk } from '../support/scripts.js';

const world = heldRunWorld();

/** A script whose run waits on the upstream, sending `event.data.customer` (or `event.data`'s type) along. */
const givenHeldScript = (config: Record<string, unknown> = {}) =>
  givenDeployed(world.api, world.owner, {
    config: { allowedResources: [world.resourceName], ...config },
    code: `export async function handler(event) { return await resources['${world.resourceName}'].getForecast({ city: String(event.data.customer ?? event.data.type ?? '') }); }`,
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
  (await world.api.as(world.owner.apiKey).get(`${rest}/${scriptId}/executions?limit=100`)).body.data.executions as Array<{ status: string }>;

describe('scripts: the 10 runs of a script, for every trigger', () => {
  it('refuses an 11th manual run (REST and SDK) with CONCURRENCY_LIMIT and records nothing for it', async () => {
    // Prepare
    world.calls.hold();
    const script = await givenHeldScript();
    const ten = Array.from({ length: 10 }, () => world.api.as(world.owner.apiKey).post(`${rest}/${script.id}/execute`, { data: {} }));
    await waitFor(() => world.calls.held.length === 10, '10 runs held');
    // Act
    const [restEleventh, sdkEleventh] = await Promise.all([
      world.api.as(world.owner.apiKey).post(`${rest}/${script.id}/execute`, { data: {} }),
      world.api.as(world.owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: {} }),
    ]);
    const recordedWhileFull = (await executionsOf(script.id)).length;
    world.calls.answerAll();
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
    world.calls.hold();
    const script = await givenHeldScript();
    const subscribed = await world.api
      .as(world.owner.apiKey)
      .post(`/api/sdk/v1/scripts/${script.id}/subscriptions`, { eventType: 'chatapp.message', conditions: [] });
    expect(subscribed.status).toBe(201);
    // Act
    for (let index = 0; index < 12; index++)
      expect((await world.api.as(world.owner.apiKey).post('/api/sdk/v1/events', sampleInput('chatapp.message'))).status).toBe(202);
    await waitFor(() => world.calls.held.length === 10, '10 runs held');
    const heldAtOnce = world.calls.held.length;
    world.calls.answerAll();
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
    world.calls.hold();
    const script = await givenHeldScript();
    const flows = await Promise.all([givenTimeFlow(world.api, world.owner, script.id), givenTimeFlow(world.api, world.owner, script.id)]);
    reconfigurePlatform({ RUN_WAIT_SECONDS: '0.2' });
    // Act
    const answers: ApiResponse[] = await Promise.all(
      flows.flatMap((flow) => Array.from({ length: 6 }, () => world.api.as(world.owner.apiKey).post(flowsPath('runFlow'), { assignmentId: flow.id }))),
    );
    await waitFor(() => world.calls.held.length === 10, '10 runs held');
    const heldAtOnce = world.calls.held.length;
    world.calls.answerAll();
    const results = await Promise.all(
      flows.map((flow) =>
        until(
          async () =>
            (await world.api.as(world.owner.apiKey).post(flowsPath('getFlow'), { assignmentId: flow.id })).body.data.executionResults as Array<{
              status: string;
            }>,
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
    const script = await givenScript(world.api, world.owner, { config: { concurrency: { limit: 2, key: 'customer.id' } } });
    const before = (await world.api.as(world.owner.apiKey).post(sdk('listScripts'), {})).body.data.count;
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
      { concurrency: { limit: 2, key: 'customerId', scope: 'everyone' }, field: 'config.concurrency.scope', value: 'everyone' },
      { concurrency: { limit: 2, key: 'customerId', scope: null }, field: 'config.concurrency.scope', value: null },
      { concurrency: 'customerId', field: 'config.concurrency', value: 'customerId' },
    ];
    // Act
    const answers = await Promise.all(
      bad.flatMap(({ concurrency }) => [
        world.api.as(world.owner.apiKey).post(rest, { name: 'x', code: nodeEcho('x'), config: { concurrency } }),
        world.api.as(world.owner.apiKey).post(sdk('createScript'), { name: 'x', code: nodeEcho('x'), config: { concurrency } }),
        world.api.as(world.owner.apiKey).patch(`${rest}/${script.id}`, { config: { concurrency } }),
      ]),
    );
    // Assess
    answers.forEach((answer, index) => {
      const { field, value } = bad[Math.floor(index / 3)]!;
      expect(answer.status).toBe(400);
      expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, ...(value !== undefined && { value }) } });
    });
    expect((await world.api.as(world.owner.apiKey).post(sdk('listScripts'), {})).body.data.count).toBe(before);
    expect((await world.api.as(world.owner.apiKey).get(`${rest}/${script.id}`)).body.data.config.concurrency).toEqual({
      limit: 2,
      key: 'customer.id',
      scope: 'user',
    });
  });

  it('keeps config.concurrency on create and update (per user unless scope is global), and removes it with null', async () => {
    // Prepare
    const script = await givenScript(world.api, world.owner, { config: { concurrency: { limit: 3, key: 'customerId' } } });
    // Act
    const created = (await world.api.as(world.owner.apiKey).get(`${rest}/${script.id}`)).body.data.config;
    const global = (
      await world.api.as(world.owner.apiKey).patch(`${rest}/${script.id}`, { config: { concurrency: { limit: 2, key: 'customerId', scope: 'global' } } })
    ).body.data.config;
    const changed = (await world.api.as(world.owner.apiKey).patch(`${rest}/${script.id}`, { config: { concurrency: { limit: 1, key: 'order.region' } } })).body
      .data.config;
    const kept = (await world.api.as(world.owner.apiKey).patch(`${rest}/${script.id}`, { config: { timeout: 20 } })).body.data.config;
    const removed = (await world.api.as(world.owner.apiKey).patch(`${rest}/${script.id}`, { config: { concurrency: null } })).body.data.config;
    // Assess
    expect(created.concurrency).toEqual({ limit: 3, key: 'customerId', scope: 'user' });
    expect(global.concurrency).toEqual({ limit: 2, key: 'customerId', scope: 'global' });
    expect(changed.concurrency).toEqual({ limit: 1, key: 'order.region', scope: 'user' });
    expect(kept).toMatchObject({ timeout: 20, concurrency: { limit: 1, key: 'order.region', scope: 'user' } });
    expect(removed.concurrency).toBeUndefined();
  });

  it('runs 30 runs over 3 key values with limit 2 never more than 2 of a value at once, and all of them', async () => {
    // Prepare: the upstream counts each value's calls in progress as they arrive.
    const inProgress = new Map<string, number>();
    const peaks = new Map<string, number>();
    world.upstream.respond((request, response) => {
      const key = lastSegmentOf(request);
      inProgress.set(key, (inProgress.get(key) ?? 0) + 1);
      peaks.set(key, Math.max(peaks.get(key) ?? 0, inProgress.get(key)!));
      world.calls.held.push({ key, response });
    });
    const script = await givenHeldScript({ concurrency: { limit: 2, key: 'customer' } });
    // Act
    const executes = Array.from({ length: 30 }, (_, index) =>
      world.api.as(world.owner.apiKey).post(`${rest}/${script.id}/execute`, { data: { customer: `customer-${index % 3}` } }),
    );
    await waitFor(() => world.calls.held.length === 6, 'two runs of each value');
    for (let answered = 0; answered < 30; answered++) {
      await waitFor(() => world.calls.held.length > 0, 'a run to answer');
      const { key, response } = world.calls.held.shift()!;
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
    world.calls.hold();
    const script = await givenHeldScript({ concurrency: { limit: 2, key: 'customer' } });
    const busy = Array.from({ length: 22 }, () => world.api.as(world.owner.apiKey).post(`${rest}/${script.id}/execute`, { data: { customer: 'busy' } }));
    await waitFor(() => world.calls.held.length === 2, 'two runs of the busy value');
    await until(
      () => executionsOf(script.id),
      (found) => found.length === 22,
      'the 22 runs recorded',
    );
    // Act
    const other = world.api.as(world.owner.apiKey).post(`${rest}/${script.id}/execute`, { data: { customer: 'quiet' } });
    await waitFor(() => world.calls.held.some(({ key }) => key === 'quiet'), 'the run of the other value');
    const busyHeld = world.calls.held.filter(({ key }) => key === 'busy').length;
    world.calls.answerAll();
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
    world.calls.hold();
    reconfigurePlatform({ RUN_WAIT_SECONDS: '0.2' });
    const script = await givenHeldScript({ concurrency: { limit: 1, key: 'customer' } });
    const first = await world.api.as(world.owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: { customer: 'acme' } });
    await waitFor(() => world.calls.held.length === 1, 'the first run held');
    // Act
    const queued = await world.api.as(world.owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: { customer: 'acme' } });
    const heldWhileQueued = world.calls.held.length;
    world.calls.answerAll();
    const ended = await until(
      async () => (await world.api.as(world.owner.apiKey).post(sdk('getExecution'), { executionId: queued.body.data.executionId })).body.data,
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
