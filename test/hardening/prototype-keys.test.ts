// Names of Object.prototype as user-named keys: every durable operation (step, wait, waitForCallback, waitForEvent,
// waitForApproval) named after each of them runs or waits as any other name does, script outputs holding them as keys
// are recorded and read back equal, and condition paths and concurrency keys through them never reach the prototype.
// Real sandboxed node and python workers, DynamoDB Local, the local platform over HTTP.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { compileConditionList } from '../../functions/events/conditions/engine.js';
import { scriptDialect } from '../../functions/events/conditions/script-dialect.js';
import { compileFlowConditions } from '../../functions/flows/conditions.js';
import { checkParams } from '../../functions/resources/method-definitions.js';
import { MethodInput } from '../../functions/resources/schemas.js';
import { buildUpstreamRequest } from '../../functions/resources/upstream-request.js';
import { concurrencyKeyValue } from '../../functions/scripts/runs/concurrency-key.js';
import { noKeyValue } from '../../functions/scripts/runs/run-slots.js';
import { durableRuns } from '../support/durable-runs.js';
import { flowsPath, getFlow, givenTimeFlow } from '../support/flows.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed, sdk } from '../support/scripts.js';

/** Every own name of Object.prototype (`__proto__` among them), in a stable order. */
const names = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])].sort();

/** `{name: value}` for every name, each an own data property (JSON.parse makes `__proto__` one, as a request body does). */
const keyedByNames = (value: (name: string) => unknown): Record<string, unknown> =>
  JSON.parse(`{${names.map((name) => `${JSON.stringify(name)}:${JSON.stringify(value(name))}`).join(',')}}`);

/** `{name: name}` with `name` an own key, whatever the name. */
const ownKey = (name: string): Record<string, string> => JSON.parse(`{${JSON.stringify(name)}:${JSON.stringify(name)}}`);

/** The object's own keys and values, as JSON text with sorted keys: compares objects whose keys include `__proto__`. */
const ownJson = (value: unknown): string =>
  JSON.stringify(value, (_key, item) =>
    item !== null && typeof item === 'object' && !Array.isArray(item) ? Object.fromEntries(Object.entries(item).sort(([a], [b]) => a.localeCompare(b))) : item,
  );

/** A run goes through a dozen invocations, one after another, on a shared machine. */
const durableTimeout = 180_000;

let api: TestApi;
let owner: TestUser;
let approver: TestUser;
let runs: ReturnType<typeof durableRuns>;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, approver] = await Promise.all([api.givenUser(), api.givenUser()]);
  runs = durableRuns(api, owner);
});
afterAll(() => api.stop());

interface Step {
  name: string;
  type: string;
  status: string;
  result?: unknown;
}

const durable = (code: string, runtime = 'nodejs18') => givenDeployed(api, owner, { runtime, code, config: { durable: true } });

async function started(scriptId: string, data: Record<string, unknown>): Promise<string> {
  const response = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId, data });
  expect(response.status).toBe(202);
  return response.body.data.executionId as string;
}

/** Waits until the run waits on `name` (a wait of `type` in its steps), and answers the execution then. */
const waitingOn = (executionId: string, name: string, type: string) =>
  vi.waitFor(
    async () => {
      const execution = await runs.getExecution(executionId);
      expect(execution.steps).toContainEqual(expect.objectContaining({ name, type, status: 'waiting' }));
      return execution;
    },
    { timeout: 30_000, interval: 100 },
  );

/** The callback id the run printed for its callback `name` (the invocation's lines are recorded once it suspends). */
const handedCallback = (executionId: string, name: string) =>
  vi.waitFor(
    async () => {
      const { logs } = await runs.getExecution(executionId);
      const line = (logs as string[]).find((candidate) => candidate.startsWith(`callback ${JSON.stringify([name]).slice(0, -1)},`));
      expect(line).toBeDefined();
      return (JSON.parse(line!.slice('callback '.length)) as [string, string])[1];
    },
    { timeout: 30_000, interval: 100 },
  );

/** Waits until the run completed: through a dozen invocations, so longer than a single run's wait. */
const completed = (executionId: string) =>
  vi.waitFor(
    async () => {
      const execution = await runs.getExecution(executionId);
      expect(execution.status).toBe('completed');
      return execution;
    },
    { timeout: durableTimeout - 10_000, interval: 200 },
  );

/** Each name's step ran once (its result is stored with the name as an own key) and its stored result came back. */
function expectStepsRanOnce(finished: { output: { results: unknown[]; ran: string[] }; steps: Step[] }) {
  const stored = finished.steps.filter((step) => step.type === 'step');
  expect(stored.map((step) => [step.name, step.status])).toEqual(names.map((name) => [name, 'succeeded']));
  for (const step of stored) expect(Object.hasOwn(step.result as object, step.name)).toBe(true);
  expect(ownJson(finished.output.results)).toBe(ownJson(stored.map((step) => step.result)));
  // The last invocation replayed every step from the journal: none of the functions ran again.
  expect(finished.output.ran).toEqual([]);
}

const nodeSteps = `export async function handler(event, context) {
  const ran = [];
  const results = [];
  for (const name of event.data.names)
    results.push(await context.step(name, async () => { ran.push(name); return { name, nonce: Math.random(), [name]: name }; }));
  await context.wait('replay', { seconds: 0.01 });
  return { results, ran };
}`;

const pythonSteps = `import random

def handler(event, context):
    ran = []
    results = []
    for name in event["data"]["names"]:
        def run(name=name):
            ran.append(name)
            return {"name": name, "nonce": random.random(), name: name}
        results.append(context.step(name, run))
    context.wait("replay", seconds=0.01)
    return {"results": results, "ran": ran}
`;

describe('prototype keys: durable operations named after Object.prototype', () => {
  it.each([
    ['node', 'nodejs18', nodeSteps],
    ['python', 'python3.11', pythonSteps],
  ])(
    '%s: a step of each name runs its function once, stores its result and replays it',
    async (_label, runtime, code) => {
      // Prepare
      const script = await durable(code, runtime);
      // Act
      const executionId = await started(script.id, { names });
      // Assess
      expectStepsRanOnce(await completed(executionId));
    },
    durableTimeout,
  );

  it(
    'a wait of each name suspends the run until its timer ends',
    async () => {
      // Prepare
      const script = await durable(`export async function handler(event, context) {
  for (const name of event.data.names) await context.wait(name, { seconds: 0.01 });
  return { waited: event.data.names.length };
}`);
      // Act
      const executionId = await started(script.id, { names });
      // Assess
      const finished = await completed(executionId);
      expect(finished.output).toEqual({ waited: names.length });
      expect(finished.steps.map((step: Step) => [step.name, step.type, step.status])).toEqual(names.map((name) => [name, 'wait', 'succeeded']));
    },
    durableTimeout,
  );

  it('a long wait of such a name keeps the run waiting', async () => {
    // Prepare
    const script = await durable(`export async function handler(event, context) {
  await context.wait('propertyIsEnumerable', { hours: 1 });
  return 'passed the wait';
}`);
    // Act
    const executionId = await started(script.id, {});
    // Assess
    const waiting = await waitingOn(executionId, 'propertyIsEnumerable', 'wait');
    expect(waiting.status).toBe('waiting');
    expect((await api.as(owner.apiKey).post(`/api/sdk/v1/executions/${executionId}/cancel`, {})).status).toBe(200);
  });

  it(
    'a callback of each name waits for its completion and returns its result',
    async () => {
      // Prepare
      const script = await durable(`export async function handler(event, context) {
  const results = [];
  for (const name of event.data.names)
    results.push(await context.waitForCallback(name, async (callbackId) => console.log('callback ' + JSON.stringify([name, callbackId]))));
  return { results };
}`);
      const executionId = await started(script.id, { names });
      // Act
      for (const name of names) {
        await waitingOn(executionId, name, 'callback');
        const callbackId = await handedCallback(executionId, name);
        const completed = await api.as(owner.apiKey).post(`/api/sdk/v1/executions/${executionId}/callbacks/${callbackId}`, { result: ownKey(name) });
        expect(completed.status).toBe(200);
      }
      // Assess
      const finished = await completed(executionId);
      expect(ownJson(finished.output.results)).toBe(ownJson(names.map(ownKey)));
      expect(finished.steps.map((step: Step) => [step.name, step.type, step.status])).toEqual(names.map((name) => [name, 'callback', 'succeeded']));
    },
    durableTimeout,
  );

  it(
    'an approval of each name waits for its approver’s decision',
    async () => {
      // Prepare
      const script = await durable(`export async function handler(event, context) {
  const decisions = [];
  for (const name of event.data.names)
    decisions.push((await context.waitForApproval(name, { approvers: [event.data.approver], message: 'approve ' + name })).decision);
  return { decisions };
}`);
      const executionId = await started(script.id, { names, approver: approver.username });
      // Act
      for (const name of names) {
        await waitingOn(executionId, name, 'approval');
        const pending = await vi.waitFor(
          async () => {
            const inbox = (await api.as(approver.apiKey).get('/api/sdk/v1/approvals?limit=100')).body.data.approvals as {
              approvalId: string;
              executionId: string;
              name: string;
            }[];
            const found = inbox.find((item) => item.executionId === executionId && item.name === name);
            expect(found).toBeDefined();
            return found!;
          },
          { timeout: 30_000, interval: 100 },
        );
        expect((await api.as(approver.apiKey).post(`/api/sdk/v1/approvals/${pending.approvalId}`, { decision: 'approve' })).status).toBe(200);
      }
      // Assess
      const finished = await completed(executionId);
      expect(finished.output).toEqual({ decisions: names.map(() => 'approve') });
      expect(finished.steps.map((step: Step) => [step.name, step.type, step.status])).toEqual(names.map((name) => [name, 'approval', 'succeeded']));
    },
    durableTimeout,
  );

  it(
    'an event wait of each name waits for its event, and its conditions never read the prototype',
    async () => {
      // Prepare
      const script = await durable(`export async function handler(event, context) {
  const markers = [];
  for (const name of event.data.names) {
    const got = await context.waitForEvent(name, {
      eventType: 'custom.protokeys',
      conditions: [
        { field: 'data.marker', operator: 'equals', value: event.data.marker + ':' + name },
        { field: 'data.' + name, operator: 'not_exists' },
        { field: 'data.marker.' + name, operator: 'not_exists' },
      ],
    });
    markers.push(got.data.marker);
  }
  return { markers };
}`);
      const marker = `pk${Date.now().toString(36)}`;
      const executionId = await started(script.id, { names, marker });
      // Act
      for (const name of names) {
        await waitingOn(executionId, name, 'event');
        const published = await api.as(owner.apiKey).post('/api/sdk/v1/events', { type: 'custom.protokeys', data: { marker: `${marker}:${name}` } });
        expect(published.status).toBe(202);
      }
      // Assess
      const finished = await completed(executionId);
      expect(finished.output).toEqual({ markers: names.map((name) => `${marker}:${name}`) });
    },
    durableTimeout,
  );
});

const nodeOutput = `export async function handler() {
  const keyed = Object.fromEntries(${JSON.stringify(names)}.map((name) => [name, name]));
  return { ...keyed, nested: { deeper: keyed }, list: [keyed] };
}`;

const pythonOutput = `def handler(event, context):
    keyed = {name: name for name in ${JSON.stringify(names)}}
    return {**keyed, "nested": {"deeper": keyed}, "list": [keyed]}
`;

/** What the output scripts return, as ownJson shows it. */
const keyed = keyedByNames((name) => name);
const expectedOutput = ownJson({ ...keyed, nested: { deeper: keyed }, list: [keyed] });

describe('prototype keys: outputs holding them as keys', () => {
  it.each([
    ['node', 'nodejs18', nodeOutput],
    ['python', 'python3.11', pythonOutput],
  ])('%s: the run is recorded and its output reads back equal', async (_label, runtime, code) => {
    // Prepare
    const script = await givenDeployed(api, owner, { runtime, code });
    // Act
    const run = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id });
    // Assess
    expect(run.status).toBe(200);
    expect(run.body.data.status).toBe('completed');
    expect(ownJson(run.body.data.output)).toBe(expectedOutput);
    const recorded = await runs.getExecution(run.body.data.executionId);
    expect(recorded.status).toBe('completed');
    expect(ownJson(recorded.output)).toBe(expectedOutput);
    const metrics = await api.as(owner.apiKey).post(sdk('getMetrics'), { scriptId: script.id });
    expect(metrics.body.data.totalExecutions).toBe(1);
  });

  it('a run’s data holding such keys reaches the script as it was sent', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, {
      code: 'export async function handler(event) { return { keys: Object.keys(event.data), data: event.data }; }',
    });
    const data = keyedByNames((name) => ({ sent: name }));
    // Act
    const run = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data });
    // Assess
    expect(run.status).toBe(200);
    expect([...run.body.data.output.keys].sort()).toEqual(names);
    expect(ownJson(run.body.data.output.data)).toBe(ownJson(data));
  });

  it('runs of such a script ending at once are each recorded and counted once', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { code: nodeOutput });
    // Act
    const ran = await Promise.all(Array.from({ length: 8 }, () => api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id })));
    // Assess
    expect(ran.map((run) => run.status)).toEqual(ran.map(() => 200));
    const recorded = await Promise.all(ran.map((run) => runs.getExecution(run.body.data.executionId)));
    expect(recorded.map((execution) => ownJson(execution.output))).toEqual(ran.map(() => expectedOutput));
    const metrics = await api.as(owner.apiKey).post(sdk('getMetrics'), { scriptId: script.id });
    expect(metrics.body.data.totalExecutions).toBe(8);
  });

  it('a flow running such a script records its result and reads it back equal', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { code: nodeOutput });
    const flow = await givenTimeFlow(api, owner, script.id);
    // Act
    const run = await api.as(owner.apiKey).post(flowsPath('runFlow'), { assignmentId: flow.id });
    // Assess
    expect(run.status).toBe(200);
    expect(run.body.data.status).toBe('success');
    expect(ownJson(run.body.data.result)).toBe(expectedOutput);
    const [recorded] = (await getFlow(api, owner, flow.id)).executionResults;
    expect(recorded.executionId).toBe(run.body.data.executionId);
    expect(ownJson(recorded.result)).toBe(expectedOutput);
  });
});

describe('prototype keys: condition paths and concurrency keys', () => {
  it.each(names)('%s: a path through it reads own properties only, in subscription, flow and wait conditions', (name) => {
    const paths = [name, `data.${name}`, `data.marker.${name}`, `${name}.${name}`];
    const events = [{}, { data: {} }, { data: { marker: 'x' } }, { data: [] }];
    for (const path of paths) {
      // Act
      const subscription = compileConditionList([{ field: path, operator: 'exists' }], scriptDialect);
      const flow = compileFlowConditions({ operator: 'AND', conditions: [{ field: path, operator: 'exists', value: true }] }, 'chatapp.message');
      const flowOfType = compileFlowConditions({ operator: 'AND', conditions: [{ field: path, operator: 'exists', value: true }] }, name);
      // Assess
      for (const event of events) {
        expect(subscription(event)).toBe(false);
        expect(flow(event)).toBe(false);
        expect(flowOfType(event)).toBe(false);
      }
    }
    const own = compileConditionList([{ field: `data.${name}`, operator: 'equals', value: `own ${name}` }], scriptDialect);
    expect(own({ data: keyedByNames((key) => `own ${key}`) })).toBe(true);
  });

  it.each(names)('%s: a concurrency key through it reads own properties only', (name) => {
    expect(concurrencyKeyValue(name, {})).toBe(noKeyValue);
    expect(concurrencyKeyValue(`customer.${name}`, { customer: {} })).toBe(noKeyValue);
    expect(concurrencyKeyValue(`customer.${name}`, { customer: keyedByNames((key) => `own ${key}`) })).toBe(`own ${name}`);
  });

  it.each(names)('%s: flow field aliases of an event type named so are none', (name) => {
    const flow = compileFlowConditions({ operator: 'AND', conditions: [{ field: 'length', operator: 'exists', value: true }] }, name);
    expect(flow({ length: 'yes' })).toBe(true);
    expect(flow({})).toBe(false);
  });

  it.each(names)('%s: a resource parameter so named is a parameter like any other', (name) => {
    // Prepare
    const endpoint = { baseUrl: 'https://api.example.com', authentication: 'none' as const, methods: [] };
    const post = MethodInput.parse({ name: 'send', method: 'POST', path: '/items' });
    const required = MethodInput.parse({ name: 'get', method: 'GET', path: '/items', parameters: [{ name, type: 'string', required: true }] });
    // Act
    const request = buildUpstreamRequest(endpoint, post, JSON.parse(`{${JSON.stringify(name)}:{"field":1},"other":2}`));
    // Assess
    expect(ownJson(JSON.parse(String(request.body)))).toBe(ownJson(JSON.parse(`{${JSON.stringify(name)}:{"field":1},"other":2}`)));
    expect(() => checkParams(required, {})).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR' }));
  });
});
