// Idempotency-Key on executes (SDK and REST), runFlow and POST /api/sdk/v1/events, and webhook deliveries carrying a
// sender's delivery id: a repeat within 24 hours answers the first answer and runs nothing. The scripts call a local
// upstream through an installed resource, so the upstream counts the runs.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessBus } from '../../functions/adapters/local/event-bus.js';
import { signWebhook } from '../../functions/events/webhook-signature.js';
import type { PlatformEventInput } from '../../functions/platform/ports.js';
import { eventScripts } from '../support/event-scripts.js';
import { flowsPath, givenTimeFlow } from '../support/flows.js';
import { type ApiResponse, type TestApi, type TestUser, startTestPlatform, uniqueName } from '../support/platform.js';
import { type Upstream, givenInstalled, givenPublishedResource, startUpstream } from '../support/resources.js';
import { givenDeployed, rest, sdk } from '../support/scripts.js';

let api: TestApi;
let upstream: Upstream;
let owner: TestUser;
let other: TestUser;
let resourceName: string;
const published: Array<PlatformEventInput & { id: string }> = [];
let unsubscribe: () => void;

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
  [owner, other] = await Promise.all([api.givenUser(), api.givenUser()]);
  resourceName = `counter-${Date.now().toString(36)}`;
  const resourceId = await givenPublishedResource(api, owner, { name: resourceName }, { baseUrl: upstream.baseUrl });
  await givenInstalled(api, owner, resourceId);
  unsubscribe = inProcessBus.subscribe(async (event) => void published.push(event));
});
afterAll(async () => {
  unsubscribe();
  await upstream.close();
  await api.stop();
});

/** A script whose every run calls the upstream once with `event.data.tag` as the city. */
const countingScript = () =>
  givenDeployed(api, owner, {
    config: { allowedResources: [resourceName] },
    code: `export async function handler(event) {
  return resources['${resourceName}'].getForecast({ city: String(event.data.tag) });
}`,
  });
const callsTagged = (tag: string) => upstream.received.filter((request) => request.url.endsWith(`/forecast/${tag}`)).length;

function post(who: TestUser, path: string, body: unknown, key?: string): Promise<ApiResponse> {
  return api.request('POST', path, { body, headers: { 'x-api-key': who.apiKey, ...(key !== undefined && { 'idempotency-key': key }) } });
}
const twenty = (send: () => Promise<ApiResponse>) => Promise.all(Array.from({ length: 20 }, send));

describe('idempotency: script executes', () => {
  it.each([
    ['executeScript', (scriptId: string, tag: string) => [sdk('executeScript'), { scriptId, data: { tag } }] as const],
    ['the REST execute', (scriptId: string, tag: string) => [`${rest}/${scriptId}/execute`, { data: { tag } }] as const],
  ])('runs 20 concurrent %s requests with one key once, all answered with the same executionId', async (_label, request) => {
    // Prepare
    const script = await countingScript();
    const tag = uniqueName('run');
    const [path, body] = request(script.id, tag);
    const key = uniqueName('key');
    // Act
    const answers = await twenty(() => post(owner, path, body, key));
    const later = await post(owner, path, body, key);
    // Assess
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const first = answers.find((answer) => answer.headers.get('idempotent-replayed') === null)!;
    const executionId = first.body.data.executionId;
    expect(executionId).toMatch(/^exe_/);
    for (const answer of [...answers, later]) expect(answer.body).toEqual(first.body);
    expect(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(19);
    expect(callsTagged(tag)).toBe(1);
  });

  it('runs again for another key or without one', async () => {
    // Prepare
    const script = await countingScript();
    const tag = uniqueName('run');
    const key = uniqueName('key');
    const first = await post(owner, sdk('executeScript'), { scriptId: script.id, data: { tag } }, key);
    // Act
    const otherKey = await post(owner, sdk('executeScript'), { scriptId: script.id, data: { tag } }, `${key}-2`);
    const noKey = await post(owner, sdk('executeScript'), { scriptId: script.id, data: { tag } });
    // Assess
    expect(otherKey.body.data.executionId).not.toBe(first.body.data.executionId);
    expect(noKey.body.data.executionId).not.toBe(first.body.data.executionId);
    expect(callsTagged(tag)).toBe(3);
  });

  it("keeps one user's keys apart from another's: the same key and body publish for each", async () => {
    // Prepare
    const key = uniqueName('key');
    const event = { type: 'custom.keyed', data: { n: 1 } };
    const owners = await post(owner, '/api/sdk/v1/events', event, key);
    // Act
    const others = await post(other, '/api/sdk/v1/events', event, key);
    // Assess
    expect(others.status).toBe(202);
    expect(others.headers.get('idempotent-replayed')).toBeNull();
    expect(others.body.data.eventId).not.toBe(owners.body.data.eventId);
  });

  it('refuses the same key with another body as CONFLICT and runs nothing', async () => {
    // Prepare
    const script = await countingScript();
    const tag = uniqueName('run');
    const key = uniqueName('key');
    await post(owner, sdk('executeScript'), { scriptId: script.id, data: { tag } }, key);
    // Act
    const refused = await post(owner, sdk('executeScript'), { scriptId: script.id, data: { tag, more: 1 } }, key);
    // Assess
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CONFLICT', details: { field: 'Idempotency-Key', value: key } });
    expect(callsTagged(tag)).toBe(1);
  });

  it('takes the same body with its fields in another order as the same request', async () => {
    // Prepare
    const script = await countingScript();
    const tag = uniqueName('run');
    const key = uniqueName('key');
    const first = await post(owner, sdk('executeScript'), { scriptId: script.id, data: { tag, a: 1, b: 2 } }, key);
    // Act
    const reordered = await post(owner, sdk('executeScript'), { data: { b: 2, a: 1, tag }, scriptId: script.id }, key);
    // Assess
    expect(reordered.body.data.executionId).toBe(first.body.data.executionId);
    expect(callsTagged(tag)).toBe(1);
  });

  it.each([
    ['empty', ''],
    ['256 characters', 'k'.repeat(256)],
    ['a control character', 'key\twith-tab'],
  ])('refuses an Idempotency-Key that is %s with VALIDATION_ERROR and runs nothing', async (_label, key) => {
    // Prepare
    const script = await countingScript();
    const tag = uniqueName('run');
    // Act
    const refused = await post(owner, sdk('executeScript'), { scriptId: script.id, data: { tag } }, key);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'Idempotency-Key', value: key } });
    expect(callsTagged(tag)).toBe(0);
  });

  it('keeps no answer of a request refused by validation, so a corrected retry with the key runs', async () => {
    // Prepare
    const script = await countingScript();
    const tag = uniqueName('run');
    const key = uniqueName('key');
    const refused = await post(owner, sdk('executeScript'), { scriptId: script.id, data: 'not an object' }, key);
    // Act
    const retried = await post(owner, sdk('executeScript'), { scriptId: script.id, data: { tag } }, key);
    // Assess
    expect(refused.status).toBe(400);
    expect(retried.status).toBe(200);
    expect(callsTagged(tag)).toBe(1);
  });
});

describe('idempotency: runFlow and POST /api/sdk/v1/events', () => {
  it('runs 20 concurrent runFlow requests with one key once, all answered with the same executionId', async () => {
    // Prepare
    const script = await countingScript();
    const flow = await givenTimeFlow(api, owner, script.id, { title: uniqueName('flow') });
    const key = uniqueName('key');
    const before = upstream.received.length;
    // Act
    const answers = await twenty(() => post(owner, flowsPath('runFlow'), { assignmentId: flow.id }, key));
    // Assess
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(200));
    const executionIds = new Set(answers.map((answer) => answer.body.data.executionId));
    expect(executionIds.size).toBe(1);
    expect(upstream.received.length - before).toBe(1);
  });

  it('publishes 20 concurrent events with one key once, all answered with the same eventId', async () => {
    // Prepare
    const type = `custom.${uniqueName('once').replace(/[^a-z0-9]/gi, '')}`;
    const key = uniqueName('key');
    // Act
    const answers = await twenty(() => post(owner, '/api/sdk/v1/events', { type, data: { n: 1 } }, key));
    const changed = await post(owner, '/api/sdk/v1/events', { type, data: { n: 2 } }, key);
    // Assess
    expect(answers.map((answer) => answer.status)).toEqual(Array(20).fill(202));
    expect(new Set(answers.map((answer) => answer.body.data.eventId)).size).toBe(1);
    expect(changed.status).toBe(409);
    expect(changed.body.error.code).toBe('CONFLICT');
    expect(published.filter((event) => event.type === type)).toHaveLength(1);
  });
});

/** A webhook resource of the owner's, installed by the other user, and its receive path. */
async function givenWebhookInstallation() {
  const endpoint = {
    authentication: 'signature',
    callbackUrl: 'https://payments.example.com/hooks',
    events: ['payment.completed'],
    signatureHeader: 'X-Pay-Signature',
    methods: [],
  };
  const resourceId = await givenPublishedResource(api, owner, { resourceType: 'webhook', name: uniqueName('hook') }, endpoint);
  const installation = await givenInstalled(api, other, resourceId);
  return { installation, path: new URL(installation.webhookUrl).pathname };
}

describe('idempotency: webhook deliveries', () => {
  const scripts = () => eventScripts(api);
  const now = () => Math.floor(Date.now() / 1000);

  it('runs a script webhook once for a redelivery with the same X-GitHub-Delivery, though signed anew', async () => {
    // Prepare
    const scriptId = await scripts().givenScript(owner);
    const created = await api.as(owner.apiKey).post('/api/sdk/v1/scripts/createWebhook', { scriptId, name: 'github' });
    const { webhookUrl, webhookSecret } = created.body.data;
    const path = new URL(webhookUrl).pathname;
    const body = JSON.stringify({ action: 'opened', number: 1 });
    const send = (rawBody: string, timestamp: number, delivery: string) =>
      api.request('POST', path, {
        rawBody,
        headers: {
          'content-type': 'application/json',
          'x-github-delivery': delivery,
          'x-webhook-timestamp': String(timestamp),
          'x-webhook-signature': signWebhook(webhookSecret, rawBody, timestamp),
        },
      });
    // Act
    const first = await send(body, now(), 'd-1');
    const redelivered = await send(body, now() - 1, 'd-1');
    const next = JSON.stringify({ action: 'opened', number: 2 });
    await send(next, now(), 'd-2');
    const runs = await scripts().waitForRuns(owner, scriptId, 2);
    // Assess
    expect(first.status).toBe(202);
    expect(redelivered.status).toBe(202);
    expect(redelivered.body.data.deliveryId).toBe(first.body.data.deliveryId);
    expect(runs.map((run) => (run.result as { data: { number: number } }).data.number)).toEqual([1, 2]);
  });

  it.each([
    ['webhook-id', (id: string, body: string) => ({ 'webhook-id': id, body })],
    ['Stripe event id', (id: string) => ({ 'stripe-signature': 't=1,v1=unused', body: JSON.stringify({ id, type: 'payment.completed' }) })],
  ])('publishes a webhook resource delivery once for a redelivery with the same %s', async (_label, delivery) => {
    // Prepare
    const { installation, path } = await givenWebhookInstallation();
    const id = uniqueName('evt');
    const { body, ...headers } = delivery(id, JSON.stringify({ type: 'payment.completed', amount: 3 }));
    const signature = createHmac('sha256', installation.webhookSecret).update(body).digest('hex');
    const deliver = () =>
      api.request('POST', path, { rawBody: body, headers: { 'content-type': 'application/json', 'x-pay-signature': signature, ...headers } });
    // Act
    const first = await deliver();
    const redelivered = await deliver();
    // Assess
    expect(first.status).toBe(200);
    expect(redelivered.body).toEqual(first.body);
    expect(published.filter((event) => event.installationId === installation.installationId)).toHaveLength(1);
  });

  it('keeps no answer of a delivery refused for its signature, so the signed one with the same id is published', async () => {
    // Prepare
    const { installation, path } = await givenWebhookInstallation();
    const body = JSON.stringify({ type: 'payment.completed', amount: 4 });
    const headers = { 'content-type': 'application/json', 'x-github-delivery': uniqueName('d') };
    const forged = await api.request('POST', path, { rawBody: body, headers: { ...headers, 'x-pay-signature': '0'.repeat(64) } });
    // Act
    const signed = await api.request('POST', path, {
      rawBody: body,
      headers: { ...headers, 'x-pay-signature': createHmac('sha256', installation.webhookSecret).update(body).digest('hex') },
    });
    // Assess
    expect(forged.status).toBe(401);
    expect(signed.status).toBe(200);
    expect(published.filter((event) => event.installationId === installation.installationId)).toHaveLength(1);
  });
});
