import { afterEach, describe, expect, it } from 'vitest';
import { givenInstalled, givenPublishedResource, json, resourceWorld } from '../support/resources.js';

const world = resourceWorld();
afterEach(() => {
  world.upstream.respond((request, response) => json(response, 200, { ok: true, path: request.url }));
  delete process.env.ALLOW_PRIVATE_UPSTREAMS;
});

const base = '/api/sdk/v1/resources';

/** A published resource on the test world.upstream, installed by `user`. */
async function given(authentication: string, authConfig?: Record<string, unknown>, overrides: Record<string, unknown> = {}) {
  const resourceId = await givenPublishedResource(world.api, world.owner, overrides, {
    baseUrl: `${world.upstream.baseUrl}/v1`,
    authentication,
    ...(authConfig && { authConfig }),
  });
  const installation = await givenInstalled(world.api, world.user, resourceId);
  return { resourceId, installationId: installation.installationId as string };
}

const call = (resourceId: string, method: string, params: Record<string, unknown>, key = world.user.apiKey) =>
  world.api.as(key).post(`${base}/${resourceId}/call`, { method, params });
const authenticate = (resourceId: string, type: string, credentials: Record<string, unknown>) =>
  world.api.as(world.user.apiKey).post(`${base}/${resourceId}/authenticate`, { type, credentials });
const lastRequest = () => world.upstream.received.at(-1)!;

describe('resource calls: request building and credential injection', () => {
  it.each([
    ['api_key in X-API-Key', 'api_key', undefined, { apiKey: 'k-123' }, (r: ReturnType<typeof lastRequest>) => r.headers['x-api-key'] === 'k-123'],
    [
      'api_key in a named header',
      'api_key',
      { headerName: 'X-Weather-Key' },
      { apiKey: 'k-456' },
      (r: ReturnType<typeof lastRequest>) => r.headers['x-weather-key'] === 'k-456' && !r.headers['x-api-key'],
    ],
    [
      'api_key in a query parameter',
      'api_key',
      { queryParam: 'appid' },
      { apiKey: 'k-789' },
      (r: ReturnType<typeof lastRequest>) => new URL(r.url, 'http://x').searchParams.get('appid') === 'k-789',
    ],
    ['bearer', 'bearer', undefined, { token: 't-1' }, (r: ReturnType<typeof lastRequest>) => r.headers.authorization === 'Bearer t-1'],
    [
      'basic',
      'basic',
      undefined,
      { username: 'ann', password: 'p:w' },
      (r: ReturnType<typeof lastRequest>) => r.headers.authorization === `Basic ${Buffer.from('ann:p:w').toString('base64')}`,
    ],
  ])('injects %s and returns the upstream response', async (_label, authentication, authConfig, credentials, check) => {
    // Prepare
    const { resourceId } = await given(authentication, authConfig);
    // Act
    const authenticated = await authenticate(resourceId, authentication, credentials);
    const answered = await call(resourceId, 'getForecast', { city: 'São Paulo', days: 3 });
    // Assess
    expect(authenticated.status).toBe(200);
    expect(authenticated.body.data).toMatchObject({ resourceId, type: authentication, isAuthenticated: true });
    expect(answered.status).toBe(200);
    expect(answered.body.data).toEqual({
      status: 200,
      success: true,
      data: { ok: true, path: expect.stringContaining('/v1/forecast/S%C3%A3o%20Paulo') },
      cost: 0.01,
      durationMs: expect.any(Number),
    });
    expect(lastRequest().method).toBe('GET');
    expect(new URL(lastRequest().url, 'http://x').searchParams.get('days')).toBe('3');
    expect(check(lastRequest())).toBe(true);
  });

  it('sends POST params as a JSON body and charges the method cost', async () => {
    // Prepare
    const { resourceId } = await given('none');
    // Act
    const answered = await call(resourceId, 'report', { text: 'storm', tags: ['a', 'b'] });
    // Assess
    expect(answered.body.data).toMatchObject({ status: 200, success: true, cost: 0.05 });
    expect(lastRequest()).toMatchObject({ method: 'POST', url: '/v1/reports' });
    expect(JSON.parse(lastRequest().body)).toEqual({ text: 'storm', tags: ['a', 'b'] });
    expect(lastRequest().headers['content-type']).toBe('application/json');
  });

  it('returns an upstream failure as data with success false and no cost', async () => {
    // Prepare
    const { resourceId } = await given('none');
    world.upstream.respond((_request, response) => json(response, 503, { error: 'down' }));
    // Act
    const answered = await call(resourceId, 'getForecast', { city: 'Oslo' });
    // Assess
    expect(answered.status).toBe(200);
    expect(answered.body.data).toMatchObject({ status: 503, success: false, data: { error: 'down' }, cost: 0 });
  });
});

describe('resource calls: refusals', () => {
  it('refuses a call before authenticate (409) and sends nothing upstream', async () => {
    // Prepare
    const { resourceId } = await given('api_key');
    const sent = world.upstream.received.length;
    // Act
    const refused = await call(resourceId, 'getForecast', { city: 'Oslo' });
    // Assess
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CONFLICT', details: { reason: 'not_authenticated' } });
    expect(world.upstream.received.length).toBe(sent);
  });

  it("refuses calling a resource that is not installed (409), and another user's draft (404)", async () => {
    // Prepare
    const resourceId = await givenPublishedResource(world.api, world.owner, {}, { baseUrl: world.upstream.baseUrl });
    const draft = (
      await world.api.as(world.owner.apiKey).post(base, { name: 'd', description: 'd', resourceType: 'api', endpoint: { baseUrl: world.upstream.baseUrl } })
    ).body.data.id;
    // Act
    const notInstalled = await call(resourceId, 'getForecast', { city: 'Oslo' });
    const hidden = await call(draft, 'getForecast', { city: 'Oslo' });
    // Assess
    expect(notInstalled.status).toBe(409);
    expect(notInstalled.body.error.details).toMatchObject({ reason: 'not_installed' });
    expect(hidden.status).toBe(404);
  });

  it.each([
    ['an unknown method', { method: 'nope', params: {} }, 'method'],
    ['a missing required parameter', { method: 'getForecast', params: {} }, 'params.city'],
    ['a parameter of the wrong type', { method: 'getForecast', params: { city: 'Oslo', days: 'three' } }, 'params.days'],
    ['a missing method', { params: {} }, 'method'],
  ])('refuses %s with VALIDATION_ERROR and sends nothing upstream', async (_label, body, field) => {
    // Prepare
    const { resourceId } = await given('none');
    const sent = world.upstream.received.length;
    // Act
    const refused = await world.api.as(world.user.apiKey).post(`${base}/${resourceId}/call`, body);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect(world.upstream.received.length).toBe(sent);
  });

  it('refuses credentials of another type, or incomplete ones, without echoing them, and stores nothing', async () => {
    // Prepare
    const { resourceId } = await given('api_key');
    // Act
    const wrongType = await authenticate(resourceId, 'bearer', { token: 'secret-token-1' });
    const incomplete = await authenticate(resourceId, 'api_key', { apikey: 'secret-token-2' });
    const listed = await world.api.as(world.user.apiKey).get(`${base}/installations?limit=100`);
    // Assess
    expect(wrongType.status).toBe(400);
    expect(wrongType.body.error.details).toMatchObject({ field: 'type', value: 'bearer' });
    expect(incomplete.status).toBe(400);
    expect(incomplete.body.error.details).toMatchObject({ field: 'credentials.apiKey', value: '[redacted]' });
    expect(incomplete.text).not.toContain('secret-token-2');
    expect(listed.body.data.installations.find((item: { resourceId: string }) => item.resourceId === resourceId).isAuthenticated).toBe(false);
  });

  it('applies a new credential and an uninstall to the very next call', async () => {
    // Prepare
    const { resourceId } = await given('bearer');
    await authenticate(resourceId, 'bearer', { token: 'first' });
    await call(resourceId, 'getForecast', { city: 'Oslo' });
    // Act
    await authenticate(resourceId, 'bearer', { token: 'second' });
    const afterRotation = await call(resourceId, 'getForecast', { city: 'Oslo' });
    const sentWith = lastRequest().headers.authorization;
    await world.api.as(world.user.apiKey).delete(`${base}/${resourceId}/install`);
    const sent = world.upstream.received.length;
    const afterUninstall = await call(resourceId, 'getForecast', { city: 'Oslo' });
    // Assess
    expect(afterRotation.status).toBe(200);
    expect(sentWith).toBe('Bearer second');
    expect(afterUninstall.status).toBe(409);
    expect(afterUninstall.body.error.details).toMatchObject({ reason: 'not_installed' });
    expect(world.upstream.received.length).toBe(sent);
  });

  it('refuses authenticate on a resource that takes no credentials (409)', async () => {
    // Prepare
    const { resourceId } = await given('none');
    // Act
    const refused = await authenticate(resourceId, 'api_key', { apiKey: 'x' });
    // Assess
    expect(refused.status).toBe(409);
  });

  it('checks the key scopes: *, resources:call or resources:<resourceId>:call', async () => {
    // Prepare
    const { resourceId } = await given('none');
    const { resourceId: otherId } = await given('none');
    const key = async (scopes: string[]) => (await world.api.as(world.user.apiKey).post('/api/sdk/v1/keys', { name: 'k', scopes })).body.data.apiKey as string;
    const [scriptsOnly, general, thisOne] = await Promise.all([key(['scripts:execute']), key(['resources:call']), key([`resources:${resourceId}:call`])]);
    // Act
    const answers = await Promise.all([
      call(resourceId, 'getForecast', { city: 'Oslo' }, scriptsOnly),
      call(resourceId, 'getForecast', { city: 'Oslo' }, general),
      call(resourceId, 'getForecast', { city: 'Oslo' }, thisOne),
      call(otherId, 'getForecast', { city: 'Oslo' }, thisOne),
    ]);
    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([403, 200, 200, 403]);
    expect(answers[0]!.body.error.code).toBe('FORBIDDEN');
  });
});

describe('resource calls: usage and metrics', () => {
  it('records calls on the installation and the resource: counts, cost, callsToday, recentCalls, error rate, revenue', async () => {
    // Prepare
    const { resourceId, installationId } = await given('none');
    await call(resourceId, 'getForecast', { city: 'Oslo' });
    await call(resourceId, 'report', { text: 'x' });
    world.upstream.respond((_request, response) => json(response, 500, {}));
    await call(resourceId, 'getForecast', { city: 'Rome' });
    // Act
    const usage = await world.api.as(world.user.apiKey).get(`${base}/installations/${installationId}/usage`);
    const metrics = await world.api.as(world.owner.apiKey).get(`${base}/${resourceId}/metrics`);
    const listed = await world.api.as(world.user.apiKey).get(`${base}/installations?limit=100`);
    const othersUsage = await world.api.as(world.owner.apiKey).get(`${base}/installations/${installationId}/usage`);
    // Assess
    expect(usage.body.data).toMatchObject({ installationId, resourceId, totalCalls: 3, totalCost: 0.06, callsToday: 3, lastUsedAt: expect.any(String) });
    expect(usage.body.data.recentCalls).toHaveLength(3);
    expect(usage.body.data.recentCalls[0]).toEqual({
      timestamp: expect.any(String),
      method: 'getForecast',
      cost: 0,
      duration: expect.any(Number),
      success: false,
    });
    expect(usage.body.data.recentCalls.map((entry: { method: string }) => entry.method)).toEqual(['getForecast', 'report', 'getForecast']);
    expect(metrics.body.data).toEqual({
      resourceId,
      totalUsers: 1,
      totalCalls: 3,
      failedCalls: 1,
      errorRate: 0.3333,
      totalRevenue: 0.06,
      rating: 0,
      reviewCount: 0,
      installCount: 1,
    });
    expect(listed.body.data.installations.find((item: { resourceId: string }) => item.resourceId === resourceId).lastUsedAt).toBe(usage.body.data.lastUsedAt);
    expect(othersUsage.status).toBe(404);
  });

  it("keeps an uninstalled installation's calls and revenue in the creator's metrics", async () => {
    // Prepare
    const { resourceId } = await given('none');
    await call(resourceId, 'report', { text: 'x' });
    world.upstream.respond((_request, response) => json(response, 500, {}));
    await call(resourceId, 'report', { text: 'y' });
    // Act
    const uninstalled = await world.api.as(world.user.apiKey).delete(`${base}/${resourceId}/install`);
    const metrics = await world.api.as(world.owner.apiKey).get(`${base}/${resourceId}/metrics`);
    // Assess
    expect(uninstalled.status).toBe(200);
    expect(metrics.body.data).toMatchObject({ totalUsers: 0, installCount: 0, totalCalls: 2, failedCalls: 1, errorRate: 0.5, totalRevenue: 0.05 });
  });

  it("charges nothing for the creator's own calls", async () => {
    // Prepare
    const resourceId = await givenPublishedResource(world.api, world.owner, {}, { baseUrl: world.upstream.baseUrl });
    await givenInstalled(world.api, world.owner, resourceId);
    // Act
    const answered = await call(resourceId, 'getForecast', { city: 'Oslo' }, world.owner.apiKey);
    // Assess
    expect(answered.body.data).toMatchObject({ success: true, cost: 0 });
  });
});

describe('resource calls: rate limits', () => {
  it('answers 429 past the resource limit per user, in the envelope with the rate-limit headers', async () => {
    // Prepare
    const { resourceId } = await given('none', undefined, {
      rateLimits: [
        { window: '1m', limit: 2 },
        { window: '1d', limit: 100 },
      ],
    });
    const neighbour = await world.api.givenUser();
    await givenInstalled(world.api, neighbour, resourceId);
    // Act
    const first = await call(resourceId, 'getForecast', { city: 'a' });
    const second = await call(resourceId, 'getForecast', { city: 'b' });
    const sent = world.upstream.received.length;
    const third = await call(resourceId, 'getForecast', { city: 'c' });
    const neighbours = await call(resourceId, 'getForecast', { city: 'd' }, neighbour.apiKey);
    // Assess
    expect([first.status, second.status]).toEqual([200, 200]);
    expect(third.status).toBe(429);
    expect(third.body).toMatchObject({ success: false, error: { code: 'RATE_LIMITED', details: { window: '1m', limit: 2 } } });
    expect(third.headers.get('x-ratelimit-limit')).toBe('2');
    expect(third.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(third.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
    expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(world.upstream.received.length).toBe(sent + 1);
    expect(neighbours.status).toBe(200);
  });
});

describe('resource calls: outbound safety and limits', () => {
  it('refuses loopback upstreams when ALLOW_PRIVATE_UPSTREAMS is false, sending nothing', async () => {
    // Prepare
    const { resourceId } = await given('none');
    process.env.ALLOW_PRIVATE_UPSTREAMS = 'false';
    const sent = world.upstream.received.length;
    // Act
    const refused = await call(resourceId, 'getForecast', { city: 'Oslo' });
    // Assess
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'private_address', address: '127.0.0.1' } });
    expect(world.upstream.received.length).toBe(sent);
  });

  it('answers 504 TIMEOUT past the resource timeout and records a failed call', async () => {
    // Prepare
    const { resourceId, installationId } = await given('none', undefined, {});
    await world.api.as(world.owner.apiKey).patch(`${base}/${resourceId}`, { endpoint: { timeoutSeconds: 1 } });
    await world.api.as(world.user.apiKey).post(`${base}/installations/${installationId}/upgrade`);
    world.upstream.respond((_request, response) => setTimeout(() => json(response, 200, {}), 1500));
    // Act
    const timedOut = await call(resourceId, 'getForecast', { city: 'Oslo' });
    const usage = await world.api.as(world.user.apiKey).get(`${base}/installations/${installationId}/usage`);
    // Assess
    expect(timedOut.status).toBe(504);
    expect(timedOut.body.error.code).toBe('TIMEOUT');
    expect(usage.body.data.recentCalls[0]).toMatchObject({ success: false, cost: 0 });
  });
});
