import { createHmac } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ScanCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { inProcessBus } from '../../functions/adapters/local/event-bus.js';
import { scheduleFiringType } from '../../functions/events/internal-events.js';
import { signWebhook } from '../../functions/events/webhook-signature.js';
import { dynamo, tableName } from '../../functions/platform/dynamo.js';
import { eventScripts } from '../support/event-scripts.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

let api: TestApi;
let scripts: ReturnType<typeof eventScripts>;
let owner: TestUser;
let stranger: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  scripts = eventScripts(api);
  [owner, stranger] = await Promise.all([api.givenUser(), api.givenUser()]);
});
afterAll(() => api.stop());

async function givenWebhook(scriptId: string, enabled = true) {
  const response = await api.as(owner.apiKey).post('/api/sdk/v1/scripts/createWebhook', { scriptId, name: 'payments', enabled });
  if (response.status !== 200) throw new Error(`could not create a webhook: ${response.text}`);
  return response.body.data as { webhookUrl: string; webhookSecret: string };
}

const now = () => Math.floor(Date.now() / 1000);

/** What a refused creation must not have written: webhook and schedule records of the script, and local schedules. */
async function triggersOf(scriptId: string) {
  const scan = (table: 'scriptWebhooks' | 'scriptSchedules') =>
    dynamo().send(
      new ScanCommand({ TableName: tableName(table), FilterExpression: 'scriptId = :scriptId', ExpressionAttributeValues: { ':scriptId': scriptId } }),
    );
  const [webhooks, schedules] = await Promise.all([scan('scriptWebhooks'), scan('scriptSchedules')]);
  const file = join(process.env.DATA_DIR!, 'schedules.json');
  const local = existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as unknown[]) : [];
  return { webhooks: webhooks.Items?.length, schedules: schedules.Items?.length, local: local.length };
}

function send(webhookUrl: string, rawBody: string, headers: Record<string, string>) {
  return api.request('POST', new URL(webhookUrl).pathname, { rawBody, headers: { 'content-type': 'application/json', ...headers } });
}

const signed = (secret: string, rawBody: string, timestamp = now()) => ({
  'x-webhook-timestamp': String(timestamp),
  'x-webhook-signature': signWebhook(secret, rawBody, timestamp),
});

describe('events: script webhooks', () => {
  it('creates a webhook with its URL and a secret shown once', async () => {
    // Prepare
    const scriptId = await scripts.givenScript(owner, { deploy: false });
    // Act
    const response = await api.as(owner.apiKey).post('/api/sdk/v1/scripts/createWebhook', { scriptId, name: 'stripe' });
    // Assess
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      scriptId,
      webhookUrl: expect.stringMatching(new RegExp(`^${api.baseUrl}/api/webhooks/whk_[A-Za-z0-9]+$`)),
      webhookSecret: expect.stringMatching(/^whsec_/),
      name: 'stripe',
      enabled: true,
    });
  });

  it('runs the script with the body of a signed request, once per request', async () => {
    // Prepare
    const scriptId = await scripts.givenScript(owner);
    const { webhookUrl, webhookSecret } = await givenWebhook(scriptId);
    const body = JSON.stringify({ event: 'payment.completed', amount: 42 });
    const headers = signed(webhookSecret, body);
    // Act
    const accepted = await send(webhookUrl, body, headers);
    const resent = await send(webhookUrl, body, headers);
    const [run] = await scripts.waitForRuns(owner, scriptId, 1);
    const other = JSON.stringify({ event: 'payment.completed', amount: 43 });
    await send(webhookUrl, other, signed(webhookSecret, other));
    const runs = await scripts.waitForRuns(owner, scriptId, 2);
    // Assess
    expect(accepted.status).toBe(202);
    expect(accepted.body.data).toEqual({ deliveryId: expect.any(String) });
    expect(resent.body.data.deliveryId).toBe(accepted.body.data.deliveryId);
    expect(run).toMatchObject({
      status: 'success',
      trigger: 'webhook',
      result: { trigger: { type: 'webhook' }, data: { event: 'payment.completed', amount: 42 } },
    });
    expect(runs.map((item) => item.result!.data.amount)).toEqual([42, 43]);
  });

  it('runs the script for the design\u2019s X-Webhook-Signature: sha256=<HMAC of the raw body>, once per signed request', async () => {
    // Prepare
    const scriptId = await scripts.givenScript(owner);
    const { webhookUrl, webhookSecret } = await givenWebhook(scriptId);
    const body = JSON.stringify({ event: 'invoice.paid', amount: 7 });
    const headers = { 'x-webhook-signature': `sha256=${createHmac('sha256', webhookSecret).update(body).digest('hex')}` };
    // Act
    const accepted = await send(webhookUrl, body, headers);
    const resent = await send(webhookUrl, body, headers);
    const wrong = await send(webhookUrl, body, { 'x-webhook-signature': `sha256=${createHmac('sha256', 'whsec_guess').update(body).digest('hex')}` });
    const [run] = await scripts.waitForRuns(owner, scriptId, 1);
    // Assess
    expect([accepted.status, resent.status, wrong.status]).toEqual([202, 202, 401]);
    expect(resent.body.data.deliveryId).toBe(accepted.body.data.deliveryId);
    expect(run).toMatchObject({ status: 'success', trigger: 'webhook', result: { data: { event: 'invoice.paid', amount: 7 } } });
    expect(await scripts.runsOf(owner, scriptId)).toHaveLength(1);
  });

  it('refuses a missing, wrong or replayed signature with 401 and runs nothing', async () => {
    // Prepare
    const scriptId = await scripts.givenScript(owner);
    const { webhookUrl, webhookSecret } = await givenWebhook(scriptId);
    const body = JSON.stringify({ event: 'payment.failed' });
    const old = now() - 301;
    // Act
    const responses = [
      await send(webhookUrl, body, {}),
      await send(webhookUrl, body, signed('whsec_guess', body)),
      await send(webhookUrl, body, { ...signed(webhookSecret, body), 'x-webhook-timestamp': String(now() - 5) }),
      await send(webhookUrl, body, signed(webhookSecret, body, old)),
      await send(webhookUrl, JSON.stringify({ event: 'payment.completed' }), signed(webhookSecret, body)),
    ];
    // A good request afterwards: once it has run, the refused ones would have run before it.
    const control = JSON.stringify({ event: 'control' });
    await send(webhookUrl, control, signed(webhookSecret, control));
    const runs = await scripts.waitForRuns(owner, scriptId, 1);
    // Assess
    expect(responses.map((response) => response.status)).toEqual([401, 401, 401, 401, 401]);
    expect(responses.map((response) => response.body.error.code)).toEqual(Array(5).fill('UNAUTHORIZED'));
    expect(runs.map((run) => run.result!.data.event)).toEqual(['control']);
  });

  it('honours the enabled flag: a disabled webhook runs nothing', async () => {
    // Prepare
    const scriptId = await scripts.givenScript(owner);
    const { webhookUrl, webhookSecret } = await givenWebhook(scriptId, false);
    const body = JSON.stringify({ event: 'payment.completed' });
    // Act
    const response = await send(webhookUrl, body, signed(webhookSecret, body));
    // Assess
    expect(response.status).toBe(409);
    expect(response.body.error.code).toBe('CONFLICT');
  });

  it('answers NOT_FOUND for a webhook id that names nothing and VALIDATION_ERROR for a body that is not a JSON object, and runs nothing', async () => {
    // Prepare
    const scriptId = await scripts.givenScript(owner);
    const { webhookUrl, webhookSecret } = await givenWebhook(scriptId);
    const notJson = 'amount=42';
    // Act
    const unknownId = await api.request('POST', '/api/webhooks/not-a-webhook', { body: {}, headers: signed(webhookSecret, '{}') });
    const malformedBody = await send(webhookUrl, notJson, signed(webhookSecret, notJson));
    const control = JSON.stringify({ event: 'control' });
    await send(webhookUrl, control, signed(webhookSecret, control));
    const runs = await scripts.waitForRuns(owner, scriptId, 1);
    // Assess
    expect(unknownId.body.error).toMatchObject({ code: 'NOT_FOUND', details: { webhookId: 'not-a-webhook' } });
    expect(malformedBody.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'body' } });
    expect(runs.map((run) => run.result!.data.event)).toEqual(['control']);
  });

  it('answers NOT_FOUND for an unknown webhook', async () => {
    // Act
    const response = await api.request('POST', '/api/webhooks/whk_unknown', { body: {}, headers: signed('x', '{}') });
    // Assess
    expect(response.status).toBe(404);
  });

  it.each([
    ['a missing name', { name: undefined }, 'name', null],
    ['a missing scriptId', { scriptId: undefined }, 'scriptId', null],
    ['enabled that is not a boolean', { enabled: 'yes' }, 'enabled', 'yes'],
    ['an unknown field', { secret: 'mine' }, 'secret', 'mine'],
  ])('refuses %s with VALIDATION_ERROR', async (_name, overrides, field, value) => {
    // Prepare
    const scriptId = await scripts.givenScript(owner, { deploy: false });
    // Act
    const response = await api.as(owner.apiKey).post('/api/sdk/v1/scripts/createWebhook', { scriptId, name: 'n', ...overrides });
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, value } });
    expect(await triggersOf(scriptId)).toMatchObject({ webhooks: 0 });
  });

  it('answers NOT_FOUND for another user\u2019s script', async () => {
    // Prepare
    const scriptId = await scripts.givenScript(owner, { deploy: false });
    // Act
    const response = await api.as(stranger.apiKey).post('/api/sdk/v1/scripts/createWebhook', { scriptId, name: 'mine now' });
    // Assess
    expect(response.status).toBe(404);
    expect(await triggersOf(scriptId)).toMatchObject({ webhooks: 0 });
  });
});

describe('events: script schedules', () => {
  it('registers a schedule with the scheduler, disabled when asked', async () => {
    // Prepare
    const scriptId = await scripts.givenScript(owner, { deploy: false });
    // Act
    const response = await api
      .as(owner.apiKey)
      .post('/api/sdk/v1/scripts/createSchedule', { scriptId, name: 'paused', cronExpression: '*/10 * * * 1-5', enabled: false });
    // Assess
    expect(response.status).toBe(200);
    expect(response.body.data).toEqual({
      scheduleId: expect.stringMatching(/^sch_/),
      scriptId,
      name: 'paused',
      cronExpression: '*/10 * * * 1-5',
      enabled: false,
    });
    const local = JSON.parse(readFileSync(join(process.env.DATA_DIR!, 'schedules.json'), 'utf8')) as Array<{ name: string }>;
    expect(local).toContainEqual({
      name: `script-${response.body.data.scheduleId}`,
      cronExpression: '*/10 * * * 1-5',
      enabled: false,
      event: { type: 'platform.script_schedule', userId: owner.userId, detail: { scheduleId: response.body.data.scheduleId } },
    });
    expect(await triggersOf(scriptId)).toMatchObject({ schedules: 1 });
  });

  it.each([
    ['* * * *', 'cronExpression', '* * * *'],
    ['61 * * * *', 'cronExpression', '61 * * * *'],
    ['*/0 * * * *', 'cronExpression', '*/0 * * * *'],
    ['0 9 * * 7', 'cronExpression', '0 9 * * 7'],
  ])('refuses the cron %j with VALIDATION_ERROR details {field, value}', async (cronExpression, field, value) => {
    // Prepare
    const scriptId = await scripts.givenScript(owner, { deploy: false });
    // Act
    const before = await triggersOf(scriptId);
    const response = await api.as(owner.apiKey).post('/api/sdk/v1/scripts/createSchedule', { scriptId, name: 'n', cronExpression });
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, value, cronExpression } });
    expect(await triggersOf(scriptId)).toEqual(before);
  });

  it.each([
    ['a missing cronExpression', { cronExpression: undefined }, 'cronExpression', null],
    ['data that is not an object', { data: [1, 2] }, 'data', [1, 2]],
    ['an unknown field', { timezone: 'Europe/Paris' }, 'timezone', 'Europe/Paris'],
  ])('refuses %s with VALIDATION_ERROR', async (_name, overrides, field, value) => {
    // Prepare
    const scriptId = await scripts.givenScript(owner, { deploy: false });
    // Act
    const before = await triggersOf(scriptId);
    const response = await api.as(owner.apiKey).post('/api/sdk/v1/scripts/createSchedule', { scriptId, name: 'n', cronExpression: '0 9 * * *', ...overrides });
    // Assess
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, value } });
    expect(await triggersOf(scriptId)).toEqual(before);
  });

  it('retires the schedule of a deleted script when it next fires', async () => {
    // Prepare
    const scriptId = await scripts.givenScript(owner, { deploy: false });
    const created = await api.as(owner.apiKey).post('/api/sdk/v1/scripts/createSchedule', { scriptId, name: 'hourly', cronExpression: '0 * * * *' });
    const deleted = await api.as(owner.apiKey).post('/api/sdk/v1/scripts/deleteScript', { scriptId });
    const left = await triggersOf(scriptId);
    // Act
    await inProcessBus.publish({
      type: scheduleFiringType,
      source: 'scheduler',
      userId: owner.userId,
      scheduleId: created.body.data.scheduleId,
      scheduledTime: '2026-03-03T03:00:00.000Z',
    });
    // Assess
    expect([created.status, deleted.status]).toEqual([200, 200]);
    expect(left.schedules).toBe(1);
    await vi.waitFor(async () => expect(await triggersOf(scriptId)).toMatchObject({ schedules: 0, local: left.local - 1 }), { timeout: 10_000, interval: 100 });
  });

  it('answers NOT_FOUND for another user\u2019s script', async () => {
    // Prepare
    const scriptId = await scripts.givenScript(owner, { deploy: false });
    // Act
    const before = await triggersOf(scriptId);
    const response = await api.as(stranger.apiKey).post('/api/sdk/v1/scripts/createSchedule', { scriptId, name: 'n', cronExpression: '0 9 * * *' });
    // Assess
    expect(response.status).toBe(404);
    expect(await triggersOf(scriptId)).toEqual(before);
  });
});
