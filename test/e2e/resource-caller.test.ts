// The ResourceCaller port (scripts, flows) and what payments uses: getForCall, callAsOwner, recordRevenue.
import { describe, expect, it } from 'vitest';
import { resourceService, resourcesApi } from '../../functions/app/resources/wiring.js';
import type { TestUser } from '../support/platform.js';
import { givenInstalled, givenPublishedResource, resourceInput, resourceWorld } from '../support/resources.js';

const world = resourceWorld();

const base = '/api/sdk/v1/resources';
const givenKeyed = (overrides: Record<string, unknown> = {}) =>
  givenPublishedResource(world.api, world.owner, overrides, { baseUrl: world.upstream.baseUrl, authentication: 'api_key' });
const authenticate = (who: TestUser, resourceId: string, apiKey: string) =>
  world.api.as(who.apiKey).post(`${base}/${resourceId}/authenticate`, { type: 'api_key', credentials: { apiKey } });

describe('resources: the ResourceCaller port', () => {
  it("calls an installed resource by its name among the user's installations, or by id, and records the usage", async () => {
    // Prepare
    const name = `prices-${Date.now().toString(36)}`;
    const resourceId = await givenKeyed({ name });
    const installation = await givenInstalled(world.api, world.user, resourceId);
    await authenticate(world.user, resourceId, 'user-key');
    // Act
    const byName = await resourcesApi().caller.call({
      userId: world.user.userId,
      resource: name,
      method: 'getForecast',
      params: { city: 'Oslo' },
      source: 'script',
    });
    const byId = await resourcesApi().caller.call({ userId: world.user.userId, resource: resourceId, method: 'report', params: { text: 'x' }, source: 'flow' });
    const usage = await world.api.as(world.user.apiKey).get(`${base}/installations/${installation.installationId}/usage`);
    // Assess
    expect(byName).toEqual({ status: 200, success: true, data: { ok: true, path: '/forecast/Oslo' }, cost: 0.01, durationMs: expect.any(Number) });
    expect(byId).toMatchObject({ status: 200, success: true, cost: 0.05 });
    expect(world.upstream.received.at(-1)!.headers['x-api-key']).toBe('user-key');
    expect(usage.body.data).toMatchObject({ totalCalls: 2, totalCost: 0.06 });
  });

  it('refuses an ambiguous name with CONFLICT listing the ids, and an unknown name with NOT_FOUND', async () => {
    // Prepare
    const name = `twin-${Date.now().toString(36)}`;
    const other = await world.api.givenUser();
    const first = await givenKeyed({ name });
    const second = await givenPublishedResource(world.api, other, { name }, { baseUrl: world.upstream.baseUrl });
    await Promise.all([givenInstalled(world.api, world.user, first), givenInstalled(world.api, world.user, second)]);
    // Act
    const [ambiguous, unknown] = await Promise.allSettled([
      resourcesApi().caller.call({ userId: world.user.userId, resource: name, method: 'getForecast', params: { city: 'x' }, source: 'script' }),
      resourcesApi().caller.call({ userId: world.user.userId, resource: 'no-such-resource', method: 'getForecast', params: {}, source: 'script' }),
    ]);
    // Assess
    expect(ambiguous).toMatchObject({ status: 'rejected', reason: { code: 'CONFLICT', details: { resourceIds: expect.arrayContaining([first, second]) } } });
    expect(unknown).toMatchObject({ status: 'rejected', reason: { code: 'NOT_FOUND' } });
  });
});

describe('resources: what payments uses', () => {
  it("reads a resource for a paid call: status, owner, pricing and methods, whoever's it is", async () => {
    // Prepare
    const resourceId = await givenKeyed();
    // Act
    const read = await resourceService().getForCall(resourceId);
    // Assess
    expect(read).toMatchObject({
      resourceId,
      status: 'published',
      ownerId: world.owner.userId,
      pricing: { model: 'pay-per-call', basePrice: 0.01 },
      authentication: 'api_key',
    });
    expect(read.methods.map((method) => method.name)).toEqual(['getForecast', 'report']);
    await expect(resourceService().getForCall('res_missing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it("runs a paid call with the owner's own credentials and records it on the owner's installation at no cost", async () => {
    // Prepare
    const resourceId = await givenKeyed();
    const ownInstallation = await givenInstalled(world.api, world.owner, resourceId);
    await authenticate(world.owner, resourceId, 'owner-key');
    // Act
    const result = await resourcesApi().callAsOwner({ resourceId, method: 'getForecast', params: { city: 'Lima' } });
    const usage = await world.api.as(world.owner.apiKey).get(`${base}/installations/${ownInstallation.installationId}/usage`);
    // Assess
    expect(result).toMatchObject({ status: 200, success: true, cost: 0.01 });
    expect(world.upstream.received.at(-1)!.headers['x-api-key']).toBe('owner-key');
    expect(usage.body.data).toMatchObject({ totalCalls: 1, totalCost: 0 });
  });

  it('runs a paid call without credentials when the owner has not installed the resource, and refuses a draft', async () => {
    // Prepare
    const resourceId = await givenKeyed();
    const draft = (await world.api.as(world.owner.apiKey).post(base, resourceInput())).body.data.id;
    // Act
    const result = await resourcesApi().callAsOwner({ resourceId, method: 'getForecast', params: { city: 'Quito' } });
    const sent = world.upstream.received.at(-1)!;
    const refused = resourcesApi().callAsOwner({ resourceId: draft, method: 'getForecast', params: { city: 'x' } });
    // Assess
    expect(result.success).toBe(true);
    expect(sent.headers['x-api-key']).toBeUndefined();
    await expect(refused).rejects.toMatchObject({ code: 'CONFLICT' });
  });

  it('adds recorded payment revenue to totalRevenue atomically, and refuses unknown resources and negative amounts', async () => {
    // Prepare
    const resourceId = await givenKeyed();
    // Act
    await Promise.all([
      resourcesApi().recordRevenue(resourceId, 0.1),
      resourcesApi().recordRevenue(resourceId, 0.2),
      resourcesApi().recordRevenue(resourceId, 1),
    ]);
    const metrics = await world.api.as(world.owner.apiKey).get(`${base}/${resourceId}/metrics`);
    // Assess
    expect(metrics.body.data.totalRevenue).toBe(1.3);
    await expect(resourcesApi().recordRevenue('res_missing', 1)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(resourcesApi().recordRevenue(resourceId, -1)).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
  });
});
