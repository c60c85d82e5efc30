// Admission of script runs over HTTP with real sandboxed workers: the interface's 10 runs per script for each kind of
// trigger (a manual run past them is refused, an event's or a flow's waits its turn), and `config.concurrency`
// (at most `limit` runs per key value; runs past it wait, fairly across key values). Each script holds its run on
// a resource call to a local upstream, which answers when the test says.
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sampleInput } from '../support/event-samples.js';
import { flowsPath, givenTimeFlow } from '../support/flows.js';
import { waitFor } from '../support/local-start.js';
import { type ApiResponse, type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { type ReceivedRequest, type Upstream, givenInstalled, givenPublishedResource, json, startUpstream } from '../support/resources.js';
import { givenDeployed, rest, sdk } from '../support/scripts.js';

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
  delete process.env.RUN_WAIT_SECONDS;
  answerAll();
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

const keyOf = (request: ReceivedRequest) => new URL(request.url, 'http://upstream').searchParams.get('city') ?? '';

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
    process.env.RUN_WAIT_SECONDS = '0.2';
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
