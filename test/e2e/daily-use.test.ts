// A day of ordinary use over HTTP, past the dead ends a new user met: one name for a flow's schedule on read and write,
// cron day names, validation messages in words, a step's own error code kept on its run, reruns and callbacks that say
// what is there, and the event that woke a waiting run traced in its deliveries.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { durableRuns } from '../support/durable-runs.js';
import { flowsPath, timeFlowInput } from '../support/flows.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { execute, givenDeployed, givenScript } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let scriptId: string;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
  scriptId = (await givenScript(api, owner)).id;
});
afterAll(() => api.stop());

const postFlow = (operation: string, body: unknown) => api.as(owner.apiKey).post(flowsPath(operation), body);

describe('daily use: a flow schedule has one name', () => {
  it('takes cronExpression, the name reads return, as the schedule on create and update, with day names', async () => {
    // Act
    const created = await postFlow('createTimeFlow', timeFlowInput(scriptId, { schedule: undefined, cronExpression: '0 9 * * MON-FRI' }));
    const updated = await postFlow('updateFlow', { flowId: created.body.data.id, cronExpression: '30 8 * JAN SUN' });
    // Assess
    expect(created.status).toBe(200);
    expect(created.body.data.trigger.config).toEqual({ cronExpression: '0 9 * * MON-FRI' });
    expect(updated.status).toBe(200);
    expect(updated.body.data.trigger.config).toEqual({ cronExpression: '30 8 * JAN SUN' });
  });

  it('refuses a schedule and a cronExpression that differ, and a missing one in words, creating nothing', async () => {
    // Prepare
    const before = (await postFlow('searchFlows', { detail: 'minimal', limit: 100 })).body.data.count;
    // Act
    const both = await postFlow('createTimeFlow', timeFlowInput(scriptId, { cronExpression: '0 10 * * *' }));
    const neither = await postFlow('createTimeFlow', timeFlowInput(scriptId, { schedule: undefined }));
    const after = (await postFlow('searchFlows', { detail: 'minimal', limit: 100 })).body.data.count;
    // Assess
    expect(both.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'cronExpression' } });
    expect(neither.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'schedule' } });
    expect(neither.body.error.message).toBe('schedule: schedule (or cronExpression: the cron, 5 fields, UTC) is required');
    expect(after).toBe(before);
  });

  it('words a wrong type for people: an object, not a record', async () => {
    // Act
    const res = await api.as(owner.apiKey).post('/api/sdk/v1/scripts/createSchedule', { scriptId, name: 'nightly', cronExpression: '0 2 * * *', data: 'x' });
    const missing = await api.as(owner.apiKey).post('/api/sdk/v1/scripts/createSchedule', { scriptId, cronExpression: '0 2 * * *' });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'data: expected an object, got a string', details: { field: 'data' } });
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'name: is required', details: { field: 'name' } });
  });
});

const upstreamDown = {
  node: "export async function handler() {\n  throw Object.assign(new Error('the upstream is down'), { code: 'UPSTREAM_DOWN' });\n}",
  python: "class UpstreamDown(Exception):\n    code = 'UPSTREAM_DOWN'\n\ndef handler(event, context):\n    raise UpstreamDown('the upstream is down')\n",
};
/** A step name the step API refuses: the DURABLE_INVALID_ARGUMENT the code does not catch. */
const badStepName = {
  node: "export async function handler(event, context) {\n  return context.step('', async () => 1);\n}",
  python: "def handler(event, context):\n    return context.step('', lambda: 1)\n",
};

describe("daily use: a run keeps its code's own error code", () => {
  it.each([
    ['nodejs18', 'node'],
    ['python3.11', 'python'],
  ] as const)('%s: a thrown code and an uncaught DURABLE_* code stay on the run, not SCRIPT_ERROR', async (runtime, key) => {
    // Prepare
    const [plain, durable] = await Promise.all([
      givenDeployed(api, owner, { runtime, code: upstreamDown[key] }),
      givenDeployed(api, owner, { runtime, code: badStepName[key], config: { durable: true } }),
    ]);
    // Act
    const failed = await execute(api, owner, plain.id);
    const refused = await execute(api, owner, durable.id);
    const ended = await durableRuns(api, owner).waitForStatus(refused.body.data.executionId, 'failed');
    // Assess
    expect(failed.body.data).toMatchObject({ status: 'failed', error: { code: 'UPSTREAM_DOWN', message: expect.stringContaining('the upstream is down') } });
    expect(ended.error.code).toBe('DURABLE_INVALID_ARGUMENT');
  });
});

describe('daily use: the event that resumed a waiting run says so', () => {
  it('lists the run and its wait in the deliveries of the event, and the waiting step names its event type', async () => {
    // Prepare
    const waiter = await givenDeployed(api, owner, {
      code: "export async function handler(event, context) {\n  return context.waitForEvent('paid', { eventType: 'custom.order_paid' });\n}",
      config: { durable: true },
    });
    const started = await execute(api, owner, waiter.id);
    const executionId = started.body.data.executionId;
    const waiting = await durableRuns(api, owner).waitForStatus(executionId, 'waiting');
    // Act
    const published = await api.as(owner.apiKey).post('/api/sdk/v1/events', { type: 'custom.order_paid', data: { orderId: 'o-1' } });
    await durableRuns(api, owner).waitForStatus(executionId, 'completed');
    const event = await vi.waitFor(
      async () => {
        const history = await api.as(owner.apiKey).get('/api/sdk/v1/events?type=custom.order_paid&limit=10');
        const found = history.body.data.events.find((item: { eventId: string }) => item.eventId === published.body.data.eventId);
        expect(found?.deliveries).toHaveLength(1);
        return found;
      },
      { timeout: 15_000, interval: 100 },
    );
    // Assess
    expect(waiting.steps).toEqual([expect.objectContaining({ name: 'paid', type: 'event', status: 'waiting', eventType: 'custom.order_paid' })]);
    expect(event.deliveries[0]).toMatchObject({ subscriptionId: null, wait: 'paid', executionId, result: 'executed', status: 'resumed' });
  });
});
