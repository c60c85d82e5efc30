// The store calls of the platform's hottest requests, counted by the local DynamoDB client (a counting step per HTTP
// request and per bus delivery), each held to a budget: a change that makes POST /events, GET /me, an execute or a
// resource call touch DynamoDB more often fails here, with the calls it makes, instead of in a bench run weeks later.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type StoreCallTally, watchStoreCalls } from '../../functions/adapters/local/store-calls.js';
import { type ApiResponse, type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenInstalled, givenPublishedResource, startUpstream, type Upstream } from '../support/resources.js';
import { durableRuns } from '../support/durable-runs.js';
import { givenDeployed, sdk } from '../support/scripts.js';

let api: TestApi;
let upstream: Upstream;
let user: TestUser;
const tallies: StoreCallTally[] = [];
let unwatch: () => void;

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
  user = await api.givenUser();
  unwatch = watchStoreCalls((tally) => tallies.push(tally));
});
afterAll(async () => {
  unwatch();
  await upstream.close();
  await api.stop();
});

const describeTally = (tally: StoreCallTally) =>
  `${tally.label}: ${tally.total} store calls (${[...tally.calls].map(([call, count]) => `${count} ${call}`).join(', ')})`;

/** The tally of the request that answered `response` (it is handed over once the request's work has settled). */
const requestTally = (response: ApiResponse) =>
  vi.waitFor(() => {
    const tally = tallies.find((one) => one.id === response.headers.get('x-request-id'));
    if (!tally) throw new Error('the request has not settled yet');
    return tally;
  });

/** The tally of the trigger pipeline's delivery of event `eventId`. */
const deliveryTally = (eventId: string) =>
  vi.waitFor(
    () => {
      const tally = tallies.find((one) => one.id === eventId && one.label.startsWith('bus '));
      if (!tally) throw new Error(`event ${eventId} has not been delivered yet`);
      return tally;
    },
    { timeout: 20_000, interval: 50 },
  );

/**
 * Store calls allowed per request (the HTTP request itself) and per delivery (the trigger pipeline's handling of the
 * event it published, with the script run or the resumed wait it makes), measured in steady state: the caller's key and
 * the event type's lookups already known, as under load.
 */
const budgets = {
  noListener: { request: 0, delivery: 1 },
  idempotencyKey: { request: 2, delivery: 1 },
  subscribed: { request: 0, delivery: 8 },
  // The wait's entry is read before it settles: its place among its user's open waits is given back in the same write;
  // the event's history then names the run it resumed (one more write, so `deliveries` traces the wake-up).
  waited: { request: 0, delivery: 9 },
  me: 1,
  execute: 5,
  resourceCall: 1,
};

const withinBudget = (tally: StoreCallTally, budget: number) => {
  console.log(describeTally(tally));
  expect(tally.total, describeTally(tally)).toBeLessThanOrEqual(budget);
};

async function publish(eventType: string, headers: Record<string, string> = {}, orderId = 'o-1') {
  const response = await api.request('POST', '/api/sdk/v1/events', {
    body: { type: eventType, data: { orderId } },
    headers: { 'x-api-key': user.apiKey, ...headers },
  });
  expect(response.status).toBe(202);
  const [request, delivery] = await Promise.all([requestTally(response), deliveryTally(response.body.data.eventId)]);
  return { request, delivery };
}

/** The second event of its type: the first has made the type's lookups known. */
async function publishWarm(eventType: string, headers: Record<string, string> = {}) {
  await publish(eventType, {}, 'warm-up');
  return publish(eventType, headers);
}

const expectPublishWithin = ({ request, delivery }: { request: StoreCallTally; delivery: StoreCallTally }, budget: { request: number; delivery: number }) => {
  withinBudget(request, budget.request);
  withinBudget(delivery, budget.delivery);
};

describe('store-call budget: POST /events', () => {
  it('with no subscriber and no wait', async () => {
    expectPublishWithin(await publishWarm('custom.budget_nobody'), budgets.noListener);
  });

  it('with an Idempotency-Key', async () => {
    expectPublishWithin(await publishWarm('custom.budget_keyed', { 'idempotency-key': `k-${Date.now()}` }), budgets.idempotencyKey);
  });

  it('with a subscribed script', async () => {
    const script = await givenDeployed(api, user, { code: 'async function handler(event) { return { success: true }; }' });
    const subscribed = await api.as(user.apiKey).post(`/api/sdk/v1/scripts/${script.id}/subscriptions`, { eventType: 'custom.budget_subscribed' });
    expect(subscribed.status).toBe(201);
    expectPublishWithin(await publishWarm('custom.budget_subscribed'), budgets.subscribed);
  });

  it('with a run waiting for it', async () => {
    const script = await givenDeployed(api, user, {
      code: `export async function handler(event, context) {
        return context.waitForEvent('order', { eventType: 'custom.budget_waited', conditions: [{ field: 'data.orderId', operator: 'equals', value: 'o-1' }] });
      }`,
      config: { durable: true },
    });
    const started = await api.as(user.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: {} });
    expect(started.status).toBe(202);
    await durableRuns(api, user).waitForStatus(started.body.data.executionId, 'waiting');
    expectPublishWithin(await publishWarm('custom.budget_waited'), budgets.waited);
  });
});

describe('store-call budget: other hot requests', () => {
  it('GET /me', async () => {
    const response = await api.as(user.apiKey).get('/api/sdk/v1/me');
    expect(response.status).toBe(200);
    withinBudget(await requestTally(response), budgets.me);
  });

  it('an execute', async () => {
    const script = await givenDeployed(api, user, { code: 'async function handler(event) { return { success: true }; }' });
    await api.as(user.apiKey).post(`/api/sdk/v1/scripts/${script.id}/execute`, { data: {} });
    const response = await api.as(user.apiKey).post(`/api/sdk/v1/scripts/${script.id}/execute`, { data: {} });
    expect(response.status).toBe(200);
    withinBudget(await requestTally(response), budgets.execute);
  });

  it('a resource call', async () => {
    const owner = await api.givenUser();
    const resourceId = await givenPublishedResource(api, owner, {}, { baseUrl: `${upstream.baseUrl}/v1` });
    await givenInstalled(api, user, resourceId);
    await api.as(user.apiKey).post(`/api/sdk/v1/resources/${resourceId}/call`, { method: 'getForecast', params: { city: 'Oslo' } });
    const response = await api.as(user.apiKey).post(`/api/sdk/v1/resources/${resourceId}/call`, { method: 'getForecast', params: { city: 'Oslo' } });
    expect(response.status).toBe(200);
    withinBudget(await requestTally(response), budgets.resourceCall);
  });
});
