// Fan-out and child runs of durable scripts over HTTP, with real sandboxed workers and DynamoDB Local: `map` and
// `parallel` whose branches step and wait (each branch's step runs once, results in input order), `invoke` of a child
// run (its result, its error with the code kept, cancel reaching it), the determinism guard on a resumed run whose
// code changed, and refusals of bad arguments. Side effects are calls to a local upstream, counted there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
  resourceName = `fan-${Date.now().toString(36)}`;
  const resourceId = await givenPublishedResource(api, owner, { name: resourceName }, { baseUrl: upstream.baseUrl });
  await givenInstalled(api, owner, resourceId);
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

const runs = () => durableRuns(api, owner);
/** Upstream calls naming `marker` (not a longer one): the side effects of one step. */
const callsOf = (marker: string) => upstream.received.filter((request) => new RegExp(`${marker}(?![0-9a-z])`).test(request.url)).length;
const durable = (code: string, runtime = 'nodejs18', extra: Record<string, unknown> = {}) =>
  givenDeployed(api, owner, { runtime, code, config: { durable: true, allowedResources: [resourceName] }, ...extra });
const start = async (scriptId: string, data: Record<string, unknown>) => {
  const answer = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId, data });
  expect(answer.body.success).toBe(true);
  return answer.body.data.executionId as string;
};
const marked = () => `f${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
type Step = { name: string; type: string; status: string; childExecutionId?: string };

const nodeMap = (resource: string) => `export async function handler(event, context) {
  const items = [1, 2, 3, 4, 5];
  return context.map('fan', items, async (branch, item, index) => {
    const path = await branch.step('call', async () => (await resources['${resource}'].getForecast({ city: event.data.marker + '-' + index })).path);
    await branch.wait('pause', { seconds: 1 });
    return { item, index, called: path.endsWith(event.data.marker + '-' + index) };
  }, { maxConcurrency: 2 });
}`;

const pythonMap = (resource: string) => `def handler(event, context):
    marker = event["data"]["marker"]
    def branch(ctx, item, index):
        path = ctx.step("call", lambda: resources["${resource}"].getForecast({"city": f"{marker}-{index}"})["path"])
        ctx.wait("pause", seconds=1)
        return {"item": item, "index": index, "called": path.endswith(f"{marker}-{index}")}
    return context.map("fan", [1, 2, 3, 4, 5], branch, max_concurrency=2)
`;

describe('durable map: branches that step and wait', () => {
  it.each([
    ['node', 'nodejs18', nodeMap],
    ['python', 'python3.11', pythonMap],
  ])('%s: every branch steps once and the results come back in input order', async (_label, runtime, code) => {
    // Prepare
    const script = await durable(code(resourceName), runtime);
    const marker = marked();
    // Act
    const executionId = await start(script.id, { marker });
    const finished = await runs().waitForStatus(executionId, 'completed');
    // Assess
    expect(finished.output).toEqual([1, 2, 3, 4, 5].map((item, index) => ({ item, index, called: true })));
    for (const index of [0, 1, 2, 3, 4]) expect(callsOf(`${marker}-${index}`)).toBe(1);
    const steps = finished.steps as Step[];
    expect(steps.filter((step) => step.name === 'fan').map((step) => [step.type, step.status])).toEqual([['map', 'succeeded']]);
    expect(steps.filter((step) => /^fan\/\d$/.test(step.name))).toHaveLength(5);
    expect(steps.filter((step) => step.name.endsWith('/pause')).every((step) => step.type === 'wait' && step.status === 'succeeded')).toBe(true);
  });
});
