import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessBus } from '../../functions/adapters/local/event-bus.js';
import type { PlatformEventInput } from '../../functions/platform/ports.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenInstalled, givenPublishedResource } from '../support/resources.js';

let api: TestApi;
let owner: TestUser;
let user: TestUser;
const published: Array<PlatformEventInput & { id: string }> = [];
let unsubscribe: () => void;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, user] = await Promise.all([api.givenUser(), api.givenUser()]);
  unsubscribe = inProcessBus.subscribe(async (event) => void published.push(event));
});
afterAll(async () => {
  unsubscribe();
  await api.stop();
});

const webhookEndpoint = {
  authentication: 'signature',
  callbackUrl: 'https://payments.example.com/hooks',
  events: ['payment.completed', 'payment.failed'],
  signatureHeader: 'X-Pay-Signature',
  methods: [],
};

async function givenWebhookInstallation() {
  const resourceId = await givenPublishedResource(api, owner, { resourceType: 'webhook' }, webhookEndpoint);
  const installation = await givenInstalled(api, user, resourceId);
  return { resourceId, installation, path: new URL(installation.webhookUrl).pathname };
}

const sign = (secret: string, body: string) => createHmac('sha256', secret).update(body).digest('hex');
const deliver = (path: string, body: string, headers: Record<string, string>) =>
  api.request('POST', path, { rawBody: body, headers: { 'content-type': 'application/json', ...headers } });
const publishedFor = (installationId: string) => published.filter((event) => event.installationId === installationId);
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('resources: webhook resources', () => {
  it('gives the installer a receive URL and a signing secret, shown once', async () => {
    // Act
    const { resourceId, installation } = await givenWebhookInstallation();
    const listed = await api.as(user.apiKey).get('/api/sdk/v1/resources/installations?limit=100');
    // Assess
    expect(installation.webhookUrl).toBe(`${api.baseUrl}/api/webhooks/resources/${installation.installationId}`);
    expect(installation.webhookSecret).toMatch(/^whsec_/);
    expect(listed.text).not.toContain(installation.webhookSecret);
    expect(installation.resourceId).toBe(resourceId);
  });

  it.each([
    ['sha256=<hex>', (hex: string) => `sha256=${hex}`],
    ['bare hex', (hex: string) => hex],
  ])('verifies a %s HMAC of the raw body and publishes the event to the installer', async (_label, format) => {
    // Prepare
    const { resourceId, installation, path } = await givenWebhookInstallation();
    const body = JSON.stringify({ type: 'payment.completed', amount: 12.5, currency: 'USDC' });
    // Act
    const accepted = await deliver(path, body, { 'x-pay-signature': format(sign(installation.webhookSecret, body)) });
    await settle();
    // Assess
    expect(accepted.status).toBe(200);
    expect(accepted.body.data).toMatchObject({ eventId: expect.any(String), type: 'payment.completed' });
    expect(publishedFor(installation.installationId)).toEqual([
      expect.objectContaining({
        id: accepted.body.data.eventId,
        type: 'payment.completed',
        source: 'webhook',
        userId: user.userId,
        resourceId,
        content: { text: '', contentType: 'message' },
        data: { type: 'payment.completed', amount: 12.5, currency: 'USDC' },
      }),
    ]);
  });

  it('takes the event name from the X-Event-Type header when the body has none', async () => {
    // Prepare
    const { installation, path } = await givenWebhookInstallation();
    const body = JSON.stringify({ amount: 3 });
    // Act
    const accepted = await deliver(path, body, { 'x-pay-signature': sign(installation.webhookSecret, body), 'x-event-type': 'payment.failed' });
    // Assess
    expect(accepted.body.data.type).toBe('payment.failed');
  });

  it.each([
    ['a wrong signature', (_secret: string, _body: string) => ({ 'x-pay-signature': `sha256=${'0'.repeat(64)}` })],
    ['a signature made with another secret', (_secret: string, body: string) => ({ 'x-pay-signature': sign('whsec_other', body) })],
    ['no signature', () => ({})],
    ['a signature of another body', (secret: string) => ({ 'x-pay-signature': sign(secret, '{}') })],
  ])('answers 401 for %s and publishes nothing', async (_label, headers) => {
    // Prepare
    const { installation, path } = await givenWebhookInstallation();
    const body = JSON.stringify({ type: 'payment.completed' });
    // Act
    const refused = await deliver(path, body, headers(installation.webhookSecret, body));
    await settle();
    // Assess
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('UNAUTHORIZED');
    expect(publishedFor(installation.installationId)).toEqual([]);
  });

  it('refuses an event the resource does not subscribe to (400), publishing nothing', async () => {
    // Prepare
    const { installation, path } = await givenWebhookInstallation();
    const body = JSON.stringify({ type: 'payment.refunded' });
    // Act
    const refused = await deliver(path, body, { 'x-pay-signature': sign(installation.webhookSecret, body) });
    await settle();
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toMatchObject({ field: 'type', value: 'payment.refunded' });
    expect(publishedFor(installation.installationId)).toEqual([]);
  });

  it('answers 404 for an unknown installation and for one of a resource that is not a webhook', async () => {
    // Prepare
    const apiResource = await givenPublishedResource(api, owner);
    const apiInstallation = await givenInstalled(api, user, apiResource);
    // Act
    const unknown = await deliver('/api/webhooks/resources/ins_unknown', '{}', {});
    const notWebhook = await deliver(`/api/webhooks/resources/${apiInstallation.installationId}`, '{}', {});
    // Assess
    expect(unknown.status).toBe(404);
    expect(notWebhook.status).toBe(404);
  });

  it('refuses to publish a webhook resource without events or signature header, saying which check', async () => {
    // Prepare
    const created = await api.as(owner.apiKey).post('/api/sdk/v1/resources', {
      name: 'hooks',
      description: 'd',
      resourceType: 'webhook',
      openApiSpec: { openapi: '3.0.3', info: { title: 't', version: '1' }, paths: {} },
      endpoint: { authentication: 'signature', events: [] },
    });
    // Act
    const refused = await api.as(owner.apiKey).post(`/api/sdk/v1/resources/${created.body.data.id}/publish`);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toMatchObject({ check: 'methods', field: 'endpoint.events' });
    expect(refused.body.error.details.failures).toContainEqual(expect.objectContaining({ check: 'endpoint', field: 'endpoint.signatureHeader' }));
  });
});
