// Durable runs over HTTP with real sandboxed workers and DynamoDB Local: steps stored once and replayed, durable
// waits that end the invocation (the run is `waiting` in between), callbacks through the API and the signed URL,
// cancel, re-run from a step and replay. Side effects are calls to a local upstream, counted there.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { type Upstream, givenInstalled, givenPublishedResource, startUpstream } from '../support/resources.js';
import { givenDeployed, sdk } from '../support/scripts.js';

let api: TestApi;
let upstream: Upstream;
let owner: TestUser;
let stranger: TestUser;
let resourceName: string;

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
  [owner, stranger] = await Promise.all([api.givenUser(), api.givenUser()]);
  resourceName = `side-${Date.now().toString(36)}`;
  const resourceId = await givenPublishedResource(api, owner, { name: resourceName }, { baseUrl: upstream.baseUrl });
  await givenInstalled(api, owner, resourceId);
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

const executions = '/api/sdk/v1/executions';
const getExecution = async (executionId: string) => (await api.as(owner.apiKey).post(sdk('getExecution'), { executionId })).body.data;
const waitForStatus = (executionId: string, status: string) =>
  vi.waitFor(
    async () => {
      const execution = await getExecution(executionId);
      expect(execution.status).toBe(status);
      return execution;
    },
    { timeout: 30_000, interval: 100 },
  );
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
