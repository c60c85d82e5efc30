// waitForEvent end to end: real durable scripts in sandboxed node and python workers wait for one of their user's
// events; another user's event and a non-matching one do not resume them, the matching one does, once.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { durableRuns } from '../support/durable-runs.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let stranger: TestUser;
const scriptIds: Record<string, string> = {};
let runs: ReturnType<typeof durableRuns>;

const nodeWaiter = `export async function handler(event, context) {
  try {
    const paid = await context.waitForEvent('paid', {
      eventType: 'custom.order_paid',
      conditions: [{ field: 'data.orderId', operator: 'equals', value: event.data.orderId }],
      timeout: event.data.timeout,
    });
    return { eventId: paid.id, orderId: paid.data.orderId };
  } catch (error) {
    return { caught: error.code };
  }
}`;

const pythonWaiter = `def handler(event, context):
    try:
        paid = context.wait_for_event(
            "paid",
            event_type="custom.order_paid",
            conditions=[{"field": "data.orderId", "operator": "equals", "value": event["data"]["orderId"]}],
            timeout=event["data"].get("timeout"),
        )
        return {"eventId": paid["id"], "orderId": paid["data"]["orderId"]}
    except Exception as error:
        return {"caught": getattr(error, "code", None)}
`;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, stranger] = await Promise.all([api.givenUser(), api.givenUser()]);
  const [node, python] = await Promise.all([
    givenDeployed(api, owner, { code: nodeWaiter, config: { durable: true } }),
    givenDeployed(api, owner, { runtime: 'python3.11', code: pythonWaiter, config: { durable: true } }),
  ]);
  scriptIds.node = node.id;
  scriptIds.python = python.id;
  runs = durableRuns(api, owner);
});
afterAll(() => api.stop());

let orders = 0;
async function givenWaitingRun(runtime: 'node' | 'python', data: Record<string, unknown> = {}) {
  const orderId = `order-${Date.now().toString(36)}-${orders++}`;
  const started = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: scriptIds[runtime], data: { orderId, ...data } });
  expect(started.status).toBe(202);
  await runs.waitForStatus(started.body.data.executionId, 'waiting');
  return { executionId: started.body.data.executionId as string, orderId };
}

const publish = async (user: TestUser, body: Record<string, unknown>) => {
  const response = await api.as(user.apiKey).post('/api/sdk/v1/events', body);
  expect(response.status).toBe(202);
  return response.body.data.eventId as string;
};

/** Waits until the dispatcher has taken the event (it is in its user's history). */
const dispatched = (user: TestUser, eventId: string) =>
  vi.waitFor(
    async () => {
      const history = await api.as(user.apiKey).get('/api/sdk/v1/events?type=custom.order_paid&limit=100');
      expect(history.body.data.events.map((event: { eventId: string }) => event.eventId)).toContain(eventId);
    },
    { timeout: 10_000, interval: 100 },
  );

describe('event waits: a run waits for one of its user’s events', () => {
  it.each(['node', 'python'] as const)('%s: resumed by a matching event of its user, not by another user’s or a non-matching one', async (runtime) => {
    // Prepare
    const { executionId, orderId } = await givenWaitingRun(runtime);
    const othersEvent = await publish(stranger, { type: 'custom.order_paid', data: { orderId } });
    const otherOrder = await publish(owner, { type: 'custom.order_paid', data: { orderId: `${orderId}-other` } });
    await Promise.all([dispatched(stranger, othersEvent), dispatched(owner, otherOrder)]);
    expect((await runs.getExecution(executionId)).status).toBe('waiting');
    // Act
    const matching = await publish(owner, { type: 'custom.order_paid', data: { orderId } });
    // Assess
    const finished = await runs.waitForStatus(executionId, 'completed');
    expect(finished.output).toEqual({ eventId: matching, orderId });
    expect(finished.steps.map((step: { name: string; type: string; status: string }) => [step.name, step.type, step.status])).toEqual([
      ['paid', 'event', 'succeeded'],
    ]);
  });

  it('resumes each waiting run once, with the first matching event', async () => {
    // Prepare
    const { executionId, orderId } = await givenWaitingRun('node');
    // Act
    const first = await publish(owner, { type: 'custom.order_paid', data: { orderId } });
    const finished = await runs.waitForStatus(executionId, 'completed');
    const second = await publish(owner, { type: 'custom.order_paid', data: { orderId } });
    await dispatched(owner, second);
    // Assess
    expect(finished.output.eventId).toBe(first);
    expect((await runs.getExecution(executionId)).output.eventId).toBe(first);
  });

  it.each(['node', 'python'] as const)('%s: timed out, the code catches TIMEOUT', async (runtime) => {
    // Prepare
    const { executionId } = await givenWaitingRun(runtime, { timeout: { seconds: 2 } });
    // Act
    const finished = await runs.waitForStatus(executionId, 'completed');
    // Assess
    expect(finished.output).toEqual({ caught: 'TIMEOUT' });
  });

  it('refuses a wait with bad conditions at the call, storing nothing', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, {
      config: { durable: true },
      code: `export async function handler(event, context) {
  try { await context.waitForEvent('bad', { eventType: 'custom.order_paid', conditions: [{ field: 'data.x', operator: 'sounds_like', value: 1 }] }); return 'waited'; }
  catch (error) { return { caught: error.code, message: error.message }; }
}`,
    });
    // Act
    const run = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id });
    // Assess
    expect(run.status).toBe(200);
    expect(run.body.data.output.caught).toBe('DURABLE_INVALID_ARGUMENT');
    expect(run.body.data.output.message).toContain('unknown operator');
    expect((await runs.getExecution(run.body.data.executionId)).steps).toEqual([]);
  });
});
