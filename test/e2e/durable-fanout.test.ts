// Fan-out and child runs of durable scripts over HTTP, with real sandboxed workers and DynamoDB Local: `map` and
// `parallel` whose branches step and wait (each branch's step runs once, results in input order), `invoke` of a child
// run (its result, its error with the code kept, cancel reaching it), the determinism guard on a resumed run whose
// code changed, and refusals of bad arguments. Side effects are calls to a local upstream, counted there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { type Upstream, givenInstalled, givenPublishedResource, json, startUpstream } from '../support/resources.js';
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

describe('durable parallel', () => {
  it('node: runs each function with its own branch context; results in input order', async () => {
    // Prepare
    const script = await durable(`export async function handler(event, context) {
  return context.parallel('both', [
    async (branch) => { await branch.wait('nap', { seconds: 1 }); return branch.step('slow', async () => 'first'); },
    async (branch) => branch.step('quick', async () => 'second'),
    async () => 'third',
  ], { maxConcurrency: 2 });
}`);
    // Act
    const executionId = await start(script.id, {});
    const finished = await runs().waitForStatus(executionId, 'completed');
    // Assess
    expect(finished.output).toEqual(['first', 'second', 'third']);
    const names = (finished.steps as Step[]).map((step) => `${step.name}:${step.type}`);
    expect(names).toEqual(expect.arrayContaining(['both/0/nap:wait', 'both/0/slow:step', 'both/1/quick:step', 'both/2:step', 'both:parallel']));
  });
});

const nodeChild = (resource: string) => `export async function handler(event) {
  await resources['${resource}'].getForecast({ city: event.data.marker + '-child-' + event.data.n });
  if (event.data.fail) throw new Error('child says no');
  return { doubled: event.data.n * 2 };
}`;
const nodeParent = (resource: string) => `export async function handler(event, context) {
  const { marker, child, childName } = event.data;
  const ok = await context.invoke('double', child, { marker, n: 21 });
  let failed;
  try {
    await context.invoke('refuse', childName, { marker, n: 1, fail: true });
  } catch (error) {
    failed = { code: error.code, message: error.message };
  }
  await context.step('after', async () => resources['${resource}'].getForecast({ city: marker + '-after' }));
  return { ok, failed };
}`;
const pythonChild = (resource: string) => `def handler(event, context):
    data = event["data"]
    resources["${resource}"].getForecast({"city": f"{data['marker']}-child-{data['n']}"})
    if data.get("fail"):
        raise RuntimeError("child says no")
    return {"doubled": data["n"] * 2}
`;
const pythonParent = (resource: string) => `def handler(event, context):
    data = event["data"]
    ok = context.invoke("double", data["child"], {"marker": data["marker"], "n": 21})
    failed = None
    try:
        context.invoke("refuse", data["childName"], {"marker": data["marker"], "n": 1, "fail": True})
    except Exception as error:
        failed = {"code": error.code, "message": str(error)}
    context.step("after", lambda: resources["${resource}"].getForecast({"city": data["marker"] + "-after"}))
    return {"ok": ok, "failed": failed}
`;

describe('durable invoke: child runs', () => {
  it.each([
    ['node', 'nodejs18', nodeChild, nodeParent],
    ['python', 'python3.11', pythonChild, pythonParent],
  ])("%s: returns the child run's result, throws its error with its code, and starts each child once", async (_label, runtime, child, parent) => {
    // Prepare
    const childName = `child-${marked()}`;
    const childScript = await givenDeployed(api, owner, { name: childName, runtime, code: child(resourceName), config: { allowedResources: [resourceName] } });
    const script = await durable(parent(resourceName), runtime);
    const marker = marked();
    // Act
    const executionId = await start(script.id, { marker, child: childScript.id, childName });
    const finished = await runs().waitForStatus(executionId, 'completed');
    // Assess
    expect(finished.output.ok).toEqual({ doubled: 42 });
    expect(finished.output.failed.code).toBe('SCRIPT_ERROR');
    expect(finished.output.failed.message).toContain('child says no');
    expect(callsOf(`${marker}-child-21`)).toBe(1);
    expect(callsOf(`${marker}-child-1`)).toBe(1);
    expect(callsOf(`${marker}-after`)).toBe(1);
    const invokes = (finished.steps as Step[]).filter((step) => step.type === 'invoke');
    expect(invokes.map((step) => [step.name, step.status])).toEqual([
      ['double', 'succeeded'],
      ['refuse', 'failed'],
    ]);
    const childRun = await runs().getExecution(invokes[0]!.childExecutionId!);
    expect(childRun).toMatchObject({ status: 'completed', parentExecutionId: executionId, rootExecutionId: executionId, output: { doubled: 42 } });
  });

  it('cancelling a run cancels the child it waits on, and that child its own', async () => {
    // Prepare
    const sleeper = await durable(`export async function handler(event, context) {
  if (event.data.depth < 2) return context.invoke('deeper', context.scriptId, { depth: event.data.depth + 1 });
  await context.wait('long', { hours: 1 });
  return 'woke';
}`);
    const executionId = await start(sleeper.id, { depth: 0 });
    const chain = [executionId];
    for (const _level of [1, 2]) {
      const parent = await runs().waitForStatus(chain.at(-1)!, 'waiting');
      await expect.poll(async () => ((await runs().getExecution(chain.at(-1)!)).steps as Step[])[0]?.childExecutionId, { timeout: 30_000 }).toBeDefined();
      chain.push(((await runs().getExecution(parent.executionId)).steps as Step[])[0]!.childExecutionId!);
    }
    await runs().waitForStatus(chain[2]!, 'waiting');
    // Act
    const cancelled = await api.as(owner.apiKey).post(`/api/sdk/v1/executions/${executionId}/cancel`);
    // Assess
    expect(cancelled.status).toBe(200);
    for (const child of chain.slice(1)) await runs().waitForStatus(child, 'cancelled');
  });

  it("refuses a missing script, another user's script and nesting past 10 levels with clear codes", async () => {
    // Prepare
    const stranger = await api.givenUser();
    const foreign = await givenDeployed(api, stranger, { code: 'export async function handler() { return 1; }' });
    const script = await durable(`export async function handler(event, context) {
  const codeOf = async (name, script) => context.invoke(name, script, {}).then(() => 'ran', (error) => error.code);
  return { missing: await codeOf('missing', 'scr_doesnotexist'), foreign: await codeOf('foreign', event.data.foreign), unnamed: await codeOf('unnamed', 'no such name') };
}`);
    const deep = await durable(`export async function handler(event, context) {
  try {
    return await context.invoke('deeper', context.scriptId, { depth: event.data.depth + 1 });
  } catch (error) {
    return { code: error.code, message: error.message, depth: event.data.depth };
  }
}`);
    // Act
    const refused = await runs().waitForStatus(await start(script.id, { foreign: foreign.id }), 'completed');
    const nested = await runs().waitForStatus(await start(deep.id, { depth: 0 }), 'completed');
    // Assess
    expect(refused.output).toEqual({ missing: 'NOT_FOUND', foreign: 'NOT_FOUND', unnamed: 'NOT_FOUND' });
    expect(nested.output).toMatchObject({ code: 'DURABLE_INVALID_ARGUMENT', depth: 10 });
    expect(nested.output.message).toContain('at most 10 deep');
  }, 120_000);
});

describe('durable map and parallel: bad arguments', () => {
  it.each([
    [
      'node',
      'nodejs18',
      `export async function handler(event, context) {
  const codeOf = (call) => call().then(() => 'ran', (error) => error.code);
  return [
    await codeOf(() => context.map('many', Array.from({ length: 1001 }, (_, index) => index), async () => 1)),
    await codeOf(() => context.map('notfn', [1], 'not a function')),
    await codeOf(() => context.map('zero', [1], async () => 1, { maxConcurrency: 0 })),
    await codeOf(() => context.map('half', [1], async () => 1, { maxConcurrency: 1.5 })),
    await codeOf(() => context.parallel('notfns', [async () => 1, 2])),
    await codeOf(() => context.map('notlist', 'abc', async () => 1)),
  ];
}`,
    ],
    [
      'python',
      'python3.11',
      `def handler(event, context):
    def code_of(call):
        try:
            call()
            return "ran"
        except Exception as error:
            return error.code
    return [
        code_of(lambda: context.map("many", list(range(1001)), lambda b, i, x: 1)),
        code_of(lambda: context.map("notfn", [1], "not a function")),
        code_of(lambda: context.map("zero", [1], lambda b, i, x: 1, max_concurrency=0)),
        code_of(lambda: context.map("half", [1], lambda b, i, x: 1, max_concurrency=1.5)),
        code_of(lambda: context.parallel("notfns", [lambda b: 1, 2])),
        code_of(lambda: context.map("notlist", "abc", lambda b, i, x: 1)),
    ]
`,
    ],
  ])('%s: each is DURABLE_INVALID_ARGUMENT, catchable by the code', async (_label, runtime, code) => {
    // Prepare
    const script = await durable(code, runtime);
    // Act
    const finished = await runs().waitForStatus(await start(script.id, {}), 'completed');
    // Assess
    expect(finished.output).toEqual(Array(6).fill('DURABLE_INVALID_ARGUMENT'));
  });
});

describe('durable determinism guard', () => {
  it.each([
    [
      'node',
      'nodejs18',
      (resource: string) => `export async function handler(event, context) {
  // Outside a step: the first invocation and the resumed one get different answers.
  const { flip } = await resources['${resource}'].getForecast({ city: event.data.marker + '-order' });
  const names = flip ? ['second', 'first'] : ['first', 'second'];
  await context.step(names[0], async () => 1);
  await context.wait('pause', { seconds: 1 });
  await context.step(names[1], async () => 2);
  return 'done';
}`,
    ],
    [
      'python',
      'python3.11',
      (resource: string) => `def handler(event, context):
    # Outside a step: the first invocation and the resumed one get different answers.
    flip = resources["${resource}"].getForecast({"city": event["data"]["marker"] + "-order"})["flip"]
    names = ["second", "first"] if flip else ["first", "second"]
    context.step(names[0], lambda: 1)
    context.wait("pause", seconds=1)
    context.step(names[1], lambda: 2)
    return "done"
`,
    ],
  ])('%s: a resumed invocation calling another operation than the journal holds fails with DURABLE_NONDETERMINISTIC', async (_label, runtime, code) => {
    // Prepare
    const script = await durable(code(resourceName), runtime);
    const marker = marked();
    upstream.respond((request, response) => json(response, 200, { ok: true, path: request.url, flip: callsOf(`${marker}-order`) > 1 }));
    // Act
    const executionId = await start(script.id, { marker });
    const failed = await runs().waitForStatus(executionId, 'failed');
    // Assess
    expect(failed.error.code).toBe('DURABLE_NONDETERMINISTIC');
    expect(failed.error.message).toContain('step first');
    expect(failed.error.message).toContain('step second');
    expect((failed.steps as Step[]).map((step) => step.name)).toEqual(['first', 'pause']);
  });
});
