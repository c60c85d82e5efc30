// Attack: an event whose data is keyed by the names of Object.prototype (`constructor`, `toString`, `__proto__`, ...).
// Before, POST /events accepted it (202) and then lost it: the history write failed inside the DynamoDB marshaller
// (`constructor`), which failed the event's delivery, so it was never listed, never woke its wait and never ran its
// subscriber; `__proto__` was dropped from the data on the way in. Now the event is kept as JSON text, a history write
// never holds up delivery, and every key comes back as sent.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { durableRuns } from '../support/durable-runs.js';
import { eventScripts } from '../support/event-scripts.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
});
afterAll(() => api.stop());

const prototypeNames = [...new Set([...Object.getOwnPropertyNames(Object.prototype), '__proto__'])];

/** The raw JSON body: `__proto__` written as a key, as a hostile client sends it (a JS object literal could not). */
function hostileEvent(eventType: string, orderId: string): string {
  const keys = prototypeNames.map((name, index) => `${JSON.stringify(name)}:{"index":${index},"name":${JSON.stringify(name)}}`);
  return `{"type":${JSON.stringify(eventType)},"data":{${keys.join(',')},"orderId":${JSON.stringify(orderId)}}}`;
}

/** What the data must read back as: every key an own property with its value. */
function expectIntact(data: Record<string, unknown>, orderId: string) {
  expect(Object.getOwnPropertyNames(data).sort()).toEqual([...prototypeNames, 'orderId'].sort());
  for (const [index, name] of prototypeNames.entries()) expect(Object.getOwnPropertyDescriptor(data, name)?.value).toEqual({ index, name });
  expect(data.orderId).toBe(orderId);
}

async function publish(eventType: string, orderId: string): Promise<string> {
  const response = await api.request('POST', '/api/sdk/v1/events', {
    rawBody: hostileEvent(eventType, orderId),
    headers: { 'content-type': 'application/json', 'x-api-key': owner.apiKey },
  });
  expect(response.status).toBe(202);
  return response.body.data.eventId as string;
}

describe('event keys: the names of Object.prototype as keys of an event’s data', () => {
  it('lists the event back with every key intact', async () => {
    // Act
    const eventId = await publish('custom.prototype_keys', 'listed');
    // Assess
    const listed = await vi.waitFor(
      async () => {
        const history = await api.as(owner.apiKey).get('/api/sdk/v1/events?type=custom.prototype_keys');
        const found = history.body.data.events.find((event: { eventId: string }) => event.eventId === eventId);
        if (!found) throw new Error(`event ${eventId} is not listed yet`);
        return found;
      },
      { timeout: 20_000, interval: 100 },
    );
    expectIntact(listed.event.data, 'listed');
  });

  it('wakes the run waiting for it, which gets every key', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, {
      code: `export async function handler(event, context) {
        const paid = await context.waitForEvent('paid', {
          eventType: 'custom.prototype_paid',
          conditions: [{ field: 'data.orderId', operator: 'equals', value: 'woken' }],
        });
        return { eventId: paid.id, keys: Object.getOwnPropertyNames(paid.data) };
      }`,
      config: { durable: true },
    });
    const started = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: {} });
    expect(started.status).toBe(202);
    const runs = durableRuns(api, owner);
    await runs.waitForStatus(started.body.data.executionId, 'waiting');
    // Act
    const eventId = await publish('custom.prototype_paid', 'woken');
    // Assess
    const finished = await runs.waitForStatus(started.body.data.executionId, 'completed');
    expect(finished.output.eventId).toBe(eventId);
    expect([...finished.output.keys].sort()).toEqual([...prototypeNames, 'orderId'].sort());
  });

  it('runs the subscribed script with every key', async () => {
    // Prepare
    const scripts = eventScripts(api);
    const scriptId = await scripts.givenScript(owner, {
      code: `async function handler(event) {
        const data = event.data.data;
        return { success: true, eventId: event.data.id, keys: Object.getOwnPropertyNames(data), values: Object.getOwnPropertyNames(data).map((key) => data[key]) };
      }`,
    });
    const subscribed = await api.as(owner.apiKey).post(`/api/sdk/v1/scripts/${scriptId}/subscriptions`, {
      eventType: 'custom.prototype_subscribed',
      conditions: [{ field: 'data.orderId', operator: 'equals', value: 'subscribed' }],
    });
    expect(subscribed.status).toBe(201);
    // Act
    const eventId = await publish('custom.prototype_subscribed', 'subscribed');
    // Assess
    const [run] = await scripts.waitForRuns(owner, scriptId, 1);
    const output = run!.result as unknown as { eventId: string; keys: string[]; values: unknown[] };
    expect(output.eventId).toBe(eventId);
    expectIntact(Object.fromEntries(output.keys.map((key, index) => [key, output.values[index]])), 'subscribed');
  });
});
