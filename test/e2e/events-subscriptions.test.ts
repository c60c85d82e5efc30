import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventScripts } from '../support/event-scripts.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

let api: TestApi;
let owner: TestUser;
let stranger: TestUser;
let scriptId: string;
let scripts: ReturnType<typeof eventScripts>;

beforeAll(async () => {
  api = await startTestPlatform();
  scripts = eventScripts(api);
  [owner, stranger] = await Promise.all([api.givenUser(), api.givenUser()]);
  scriptId = await scripts.givenScript(owner, { deploy: false });
});
afterAll(() => api.stop());

const path = (id = scriptId) => `/api/sdk/v1/scripts/${id}/subscriptions`;
const tickerCondition = [{ field: 'enrichment.tickers.length', operator: 'greater_than', value: 0 }];

async function givenSubscription(body: Record<string, unknown> = {}) {
  const response = await api.as(owner.apiKey).post(path(), { eventType: 'chatapp.message', conditions: tickerCondition, ...body });
  if (response.status !== 201) throw new Error(`could not subscribe: ${response.text}`);
  return response.body.data as { subscriptionId: string; eventType: string; enabled: boolean; createdAt: string };
}

const listed = async (user = owner) => (await api.as(user.apiKey).get(`${path()}?limit=100`)).body.data?.subscriptions as Array<Record<string, unknown>>;
const findListed = async (subscriptionId: string) => (await listed()).find((item) => item.subscriptionId === subscriptionId);

describe('events: subscriptions', () => {
  it('creates a subscription and answers the interface\u2019s fields', async () => {
    // Act
    const response = await api.as(owner.apiKey).post(path(), { eventType: 'chatapp.message', conditions: tickerCondition });
    // Assess
    expect(response.status).toBe(201);
    expect(response.body.data).toEqual({
      subscriptionId: expect.stringMatching(/^sub_/),
      eventType: 'chatapp.message',
      enabled: true,
      createdAt: expect.any(String),
    });
    expect(await findListed(response.body.data.subscriptionId)).toEqual({
      ...response.body.data,
      conditions: tickerCondition,
      updatedAt: response.body.data.createdAt,
    });
  });

  it('lists a script\u2019s subscriptions with pagination', async () => {
    // Prepare
    const first = await givenSubscription({ eventType: 'call.ended', conditions: [] });
    const second = await givenSubscription({ eventType: 'payment.completed', enabled: false });
    // Act
    const all = await api.as(owner.apiKey).get(`${path()}?limit=100`);
    const page = await api.as(owner.apiKey).get(`${path()}?limit=1&offset=1`);
    // Assess
    expect(all.status).toBe(200);
    const ids = (all.body.data.subscriptions as Array<{ subscriptionId: string }>).map((item) => item.subscriptionId);
    expect(ids).toEqual(expect.arrayContaining([first.subscriptionId, second.subscriptionId]));
    expect(page.body.data).toMatchObject({ total: all.body.data.total, limit: 1, offset: 1, subscriptions: [all.body.data.subscriptions[1]] });
  });

  it('patches enabled and conditions and answers the whole subscription', async () => {
    // Prepare
    const subscription = await givenSubscription();
    const conditions = [
      {
        operator: 'or',
        conditions: [
          { field: 'actor.name', operator: 'starts_with', value: 'Dana' },
          { field: 'type', operator: 'in', value: ['chatapp.message'] },
        ],
      },
    ];
    // Act
    const disabled = await api.as(owner.apiKey).patch(`${path()}/${subscription.subscriptionId}`, { enabled: false });
    const changed = await api.as(owner.apiKey).patch(`${path()}/${subscription.subscriptionId}`, { conditions });
    // Assess
    expect(disabled.status).toBe(200);
    expect(disabled.body.data).toMatchObject({ subscriptionId: subscription.subscriptionId, enabled: false, conditions: tickerCondition });
    expect(changed.body.data).toMatchObject({ enabled: false, conditions, createdAt: subscription.createdAt });
    expect(changed.body.data.updatedAt > disabled.body.data.updatedAt).toBe(true);
    expect(await findListed(subscription.subscriptionId)).toEqual(changed.body.data);
  });

  it('deletes a subscription with a confirmation message', async () => {
    // Prepare
    const subscription = await givenSubscription();
    // Act
    const response = await api.as(owner.apiKey).delete(`${path()}/${subscription.subscriptionId}`);
    const again = await api.as(owner.apiKey).delete(`${path()}/${subscription.subscriptionId}`);
    // Assess
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ success: true, message: expect.stringContaining(subscription.subscriptionId) });
    expect(again.status).toBe(404);
    expect(await findListed(subscription.subscriptionId)).toBeUndefined();
  });

  it('keeps a script with an enabled subscription from being deleted', async () => {
    // Prepare
    const target = await scripts.givenScript(owner, { deploy: false });
    await api.as(owner.apiKey).post(path(target), { eventType: 'call.started' });
    // Act
    const response = await api.as(owner.apiKey).delete(`/api/sdk/v1/scripts/${target}`);
    // Assess
    expect(response.status).toBe(409);
  });
});

describe('events: subscriptions refuse bad input and change nothing', () => {
  it.each([
    ['a missing eventType', { conditions: [] }, 'eventType', null],
    ['an unknown eventType', { eventType: 'chatapp.reaction' }, 'eventType', 'chatapp.reaction'],
    ['conditions that are not a list', { eventType: 'call.ended', conditions: 'type = x' }, 'conditions', 'type = x'],
    ['an unknown operator', { eventType: 'call.ended', conditions: [{ field: 'type', operator: 'like', value: 'x' }] }, 'conditions.0.operator', 'like'],
    [
      'a value of the wrong type',
      { eventType: 'call.ended', conditions: [{ field: 'call.durationSeconds', operator: 'greater_than', value: 'long' }] },
      'conditions.0.value',
      'long',
    ],
    ['enabled that is not a boolean', { eventType: 'call.ended', enabled: 'yes' }, 'enabled', 'yes'],
    ['an unknown field', { eventType: 'call.ended', filter: {} }, 'filter', {}],
  ])('create with %s', async (_name, body, field, value) => {
    // Prepare
    const before = await listed();
    // Act
    const response = await api.as(owner.apiKey).post(path(), body);
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, value } });
    expect(await listed()).toEqual(before);
  });

  it('create with a condition tree deeper than 5 levels', async () => {
    // Prepare
    const before = await listed();
    let node: unknown = { field: 'type', operator: 'exists' };
    for (let level = 0; level < 5; level++) node = { operator: 'and', conditions: [node] };
    // Act
    const response = await api.as(owner.apiKey).post(path(), { eventType: 'call.ended', conditions: [node] });
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { value: 6 } });
    expect(await listed()).toEqual(before);
  });

  it.each([
    ['in the list itself', (leaves: unknown[]) => leaves, 'conditions.50'],
    ['under one group', (leaves: unknown[]) => [{ operator: 'or', conditions: leaves }], 'conditions.0.conditions.50'],
  ])('create with more than 50 conditions %s', async (_name, tree, field) => {
    // Prepare
    const before = await listed();
    const leaves = Array.from({ length: 51 }, (_, index) => ({ field: 'content.text', operator: 'contains', value: `word${index}` }));
    // Act
    const response = await api.as(owner.apiKey).post(path(), { eventType: 'chatapp.message', conditions: tree(leaves) });
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, value: 51 } });
    expect(await listed()).toEqual(before);
  });

  it.each([
    ['nothing to change', {}, 'enabled', null],
    ['malformed conditions', { conditions: [{ field: 'type', operator: 'exists', value: 1 }] }, 'conditions.0.value', 1],
    ['enabled that is not a boolean', { enabled: 'no' }, 'enabled', 'no'],
  ])('patch with %s', async (_name, body, field, value) => {
    // Prepare
    const subscription = await givenSubscription();
    const before = await findListed(subscription.subscriptionId);
    // Act
    const response = await api.as(owner.apiKey).patch(`${path()}/${subscription.subscriptionId}`, body);
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, value } });
    expect(await findListed(subscription.subscriptionId)).toEqual(before);
  });

  it('delete and patch of ids that name nothing answer NOT_FOUND; a list with bad paging VALIDATION_ERROR', async () => {
    // Act
    const deleted = await api.as(owner.apiKey).delete(`${path()}/not-a-subscription`);
    const patched = await api.as(owner.apiKey).patch(`${path()}/nope`, { enabled: true });
    const paged = await api.as(owner.apiKey).get(`${path()}?limit=0`);
    // Assess
    expect([deleted.status, patched.status]).toEqual([404, 404]);
    expect(deleted.body.error).toMatchObject({ code: 'NOT_FOUND', details: { subscriptionId: 'not-a-subscription' } });
    expect(patched.body.error).toMatchObject({ code: 'NOT_FOUND', details: { subscriptionId: 'nope' } });
    expect(paged.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'limit' } });
  });
});

describe('events: subscriptions are their owner\u2019s alone', () => {
  it('answers NOT_FOUND to another user on every operation and changes nothing', async () => {
    // Prepare
    const subscription = await givenSubscription();
    const before = await listed();
    const as = api.as(stranger.apiKey);
    // Act
    const created = await as.post(path(), { eventType: 'chatapp.message' });
    const list = await as.get(path());
    const patched = await as.patch(`${path()}/${subscription.subscriptionId}`, { enabled: false });
    const deleted = await as.delete(`${path()}/${subscription.subscriptionId}`);
    // Assess
    for (const response of [created, list, patched, deleted]) {
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('NOT_FOUND');
    }
    expect(await listed()).toEqual(before);
  });

  it('answers NOT_FOUND for a subscription id of another script', async () => {
    // Prepare
    const subscription = await givenSubscription();
    const otherScript = await scripts.givenScript(owner, { deploy: false });
    // Act
    const response = await api.as(owner.apiKey).patch(`${path(otherScript)}/${subscription.subscriptionId}`, { enabled: false });
    // Assess
    expect(response.status).toBe(404);
    expect((await findListed(subscription.subscriptionId))?.enabled).toBe(true);
  });
});
