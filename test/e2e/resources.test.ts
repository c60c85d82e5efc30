import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenInstalled, givenPublishedResource, resourceInput } from '../support/resources.js';

let api: TestApi;
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, other] = await Promise.all([api.givenUser(), api.givenUser()]);
});
afterAll(() => api.stop());

const base = '/api/sdk/v1/resources';
const create = (user: TestUser, body: unknown) => api.as(user.apiKey).post(base, body);

describe('resources: create and read', () => {
  it('creates a draft with the fields of the interface and normalises both method dialects', async () => {
    // Act
    const created = await create(owner, resourceInput({ name: 'Weather API' }));
    const read = await api.as(owner.apiKey).get(`${base}/${created.body.data.id}`);
    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^res_/),
      name: 'Weather API',
      resourceType: 'api',
      status: 'draft',
      createdAt: expect.any(String),
    });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      id: created.body.data.id,
      status: 'draft',
      version: 1,
      ownerId: owner.userId,
      rating: 0,
      installCount: 0,
      publishedAt: null,
    });
    expect(read.body.data.endpoint.methods).toEqual([
      {
        name: 'getForecast',
        httpMethod: 'GET',
        path: '/forecast/{city}',
        parameters: [
          { name: 'city', type: 'string', required: true },
          { name: 'days', type: 'integer', required: false },
        ],
      },
      {
        name: 'report',
        httpMethod: 'POST',
        path: '/reports',
        parameters: [
          { name: 'text', type: 'string', required: true },
          { name: 'tags', type: 'string[]', required: false },
        ],
        cost: 0.05,
      },
    ]);
  });

  it.each(['api', 'llm', 'script', 'integration', 'api_endpoint', 'data_source', 'webhook'])('accepts resourceType %s', async (resourceType) => {
    // Act
    const created = await create(owner, resourceInput({ resourceType }));
    // Assess
    expect(created.status).toBe(201);
    expect(created.body.data.resourceType).toBe(resourceType);
  });

  it('accepts a creation without openApiSpec, as one example of the interface does', async () => {
    // Prepare
    const { openApiSpec: _omitted, ...input } = resourceInput();
    // Act
    const created = await create(owner, input);
    // Assess
    expect(created.status).toBe(201);
  });

  it.each([
    ['a missing name', { name: undefined }, 'name'],
    ['an unknown resourceType', { resourceType: 'ftp' }, 'resourceType'],
    ['a non-http baseUrl', { endpoint: { baseUrl: 'file:///etc/passwd', methods: [] } }, 'endpoint.baseUrl'],
    ['an unknown HTTP verb', { endpoint: { methods: [{ name: 'x', httpMethod: 'FETCH', path: '/' }] } }, 'endpoint.methods.0.httpMethod'],
    ['a rate limit window other than 1m, 1h, 1d', { rateLimits: [{ window: '5m', limit: 3 }] }, 'rateLimits.0.window'],
  ])('refuses %s with VALIDATION_ERROR naming the field, and creates nothing', async (_label, change, field) => {
    // Prepare
    const before = await api.as(owner.apiKey).get(`${base}?limit=100`);
    // Act
    const refused = await create(owner, { ...resourceInput(), ...change });
    const after = await api.as(owner.apiKey).get(`${base}?limit=100`);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect(after.body.data.total).toBe(before.body.data.total);
  });

  it("lists the caller's own resources only, drafts included, with status filter and paging", async () => {
    // Prepare
    const user = await api.givenUser();
    const draft = (await create(user, resourceInput())).body.data.id;
    const published = await givenPublishedResource(api, user);
    await create(other, resourceInput());
    // Act
    const all = await api.as(user.apiKey).get(base);
    const drafts = await api.as(user.apiKey).get(`${base}?status=draft`);
    const page = await api.as(user.apiKey).get(`${base}?limit=1&offset=1`);
    // Assess
    expect(all.body.data.resources.map((item: { id: string }) => item.id).sort()).toEqual([draft, published].sort());
    expect(drafts.body.data).toMatchObject({ total: 1, resources: [{ id: draft, status: 'draft' }] });
    expect(page.body.data).toMatchObject({ total: 2, limit: 1, offset: 1 });
    expect(page.body.data.resources).toHaveLength(1);
  });

  it("hides another user's draft (404) but shows their published resource", async () => {
    // Prepare
    const draft = (await create(owner, resourceInput())).body.data.id;
    const published = await givenPublishedResource(api, owner);
    // Act
    const hidden = await api.as(other.apiKey).get(`${base}/${draft}`);
    const shown = await api.as(other.apiKey).get(`${base}/${published}`);
    // Assess
    expect(hidden.status).toBe(404);
    expect(hidden.body.error.code).toBe('NOT_FOUND');
    expect(shown.status).toBe(200);
    expect(shown.body.data.status).toBe('published');
  });
});

describe('resources: publish and unpublish', () => {
  it('publishes a valid draft with optional pricing, category and tags', async () => {
    // Prepare
    const id = (await create(owner, resourceInput())).body.data.id;
    // Act
    const published = await api
      .as(owner.apiKey)
      .post(`${base}/${id}/publish`, { pricing: { model: 'pay-per-call', basePrice: 0.02 }, category: 'weather', tags: ['rain'] });
    const read = await api.as(owner.apiKey).get(`${base}/${id}`);
    // Assess
    expect(published.status).toBe(200);
    expect(published.body.data).toEqual({ id, status: 'published', publishedAt: expect.any(String) });
    expect(read.body.data).toMatchObject({
      status: 'published',
      category: 'weather',
      tags: ['rain'],
      pricing: { model: 'pay-per-call', basePrice: 0.02 },
      version: 2,
    });
  });

  it.each([
    ['openApiSpec', 'no OpenAPI document', { openApiSpec: undefined }, {}],
    ['openApiSpec', 'an OpenAPI 3.1 document', { openApiSpec: { openapi: '3.1.0', info: { title: 't', version: '1' }, paths: {} } }, {}],
    ['openApiSpec', 'an invalid OpenAPI 3.0 document', { openApiSpec: { openapi: '3.0.3', info: { title: 't' }, paths: { '/x': { get: {} } } } }, {}],
    ['methods', 'no method', {}, { methods: [] }],
    ['methodSchemas', 'a parameter of an unknown type', {}, { methods: [{ name: 'a', httpMethod: 'GET', path: '/a', parameters: { q: { type: 'date' } } }] }],
    ['methodSchemas', 'an undeclared path placeholder', {}, { methods: [{ name: 'a', httpMethod: 'GET', path: '/a/{id}' }] }],
  ])('refuses to publish with %s failing (%s), saying which check, and keeps the draft', async (check, _label, overrides, endpoint) => {
    // Prepare
    const id = (await create(owner, resourceInput(overrides, endpoint))).body.data.id;
    // Act
    const refused = await api.as(owner.apiKey).post(`${base}/${id}/publish`, {});
    const read = await api.as(owner.apiKey).get(`${base}/${id}`);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { check, field: expect.any(String) } });
    expect(read.body.data.status).toBe('draft');
  });

  it('refuses to publish twice and to unpublish a draft with CONFLICT', async () => {
    // Prepare
    const id = await givenPublishedResource(api, owner);
    const draft = (await create(owner, resourceInput())).body.data.id;
    // Act
    const again = await api.as(owner.apiKey).post(`${base}/${id}/publish`, {});
    const notPublished = await api.as(owner.apiKey).post(`${base}/${draft}/unpublish`, {});
    // Assess
    expect(again.status).toBe(409);
    expect(notPublished.status).toBe(409);
    expect(again.body.error.code).toBe('CONFLICT');
  });

  it('unpublishes: out of the marketplace, no new installs, existing installations keep working', async () => {
    // Prepare
    const id = await givenPublishedResource(api, owner);
    const installation = await givenInstalled(api, other, id);
    const latecomer = await api.givenUser();
    // Act
    const unpublished = await api.as(owner.apiKey).post(`${base}/${id}/unpublish`, {});
    const install = await api.as(latecomer.apiKey).post(`${base}/${id}/install`);
    const market = await api.as(other.apiKey).get(`${base}/marketplace?limit=100`);
    const installations = await api.as(other.apiKey).get(`${base}/installations?limit=100`);
    const [forInstaller, forLatecomer] = await Promise.all([api.as(other.apiKey).get(`${base}/${id}`), api.as(latecomer.apiKey).get(`${base}/${id}`)]);
    // Assess
    expect(unpublished.body.data).toEqual({ id, status: 'draft' });
    expect(install.status).toBe(404);
    expect([forInstaller.status, forLatecomer.status]).toEqual([200, 404]);
    expect(market.body.data.resources.map((item: { id: string }) => item.id)).not.toContain(id);
    expect(installations.body.data.installations.map((item: { installationId: string }) => item.installationId)).toContain(installation.installationId);
  });
});

describe('resources: PATCH and versions', () => {
  it('makes a new version for definition changes; installations keep theirs until they upgrade', async () => {
    // Prepare
    const id = await givenPublishedResource(api, owner);
    const installation = await givenInstalled(api, other, id);
    // Act
    const patched = await api
      .as(owner.apiKey)
      .patch(`${base}/${id}`, { description: 'Now with alerts', methods: [{ name: 'alerts', httpMethod: 'GET', path: '/alerts' }] });
    const before = await api.as(other.apiKey).get(`${base}/installations`);
    const upgraded = await api.as(other.apiKey).post(`${base}/installations/${installation.installationId}/upgrade`);
    const again = await api.as(other.apiKey).post(`${base}/installations/${installation.installationId}/upgrade`);
    // Assess
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ id, description: 'Now with alerts', version: 2, endpoint: { methods: [{ name: 'alerts' }] } });
    expect(before.body.data.installations.find((item: { resourceId: string }) => item.resourceId === id)).toMatchObject({ version: 1, latestVersion: 2 });
    expect(upgraded.status).toBe(200);
    expect(upgraded.body.data).toMatchObject({ installationId: installation.installationId, version: 2, previousVersion: 1 });
    expect(again.status).toBe(409);
  });

  it('keeps the version for metadata-only changes', async () => {
    // Prepare
    const id = (await create(owner, resourceInput())).body.data.id;
    // Act
    const patched = await api.as(owner.apiKey).patch(`${base}/${id}`, { description: 'Only words', tags: ['x'] });
    // Assess
    expect(patched.body.data).toMatchObject({ version: 1, description: 'Only words', tags: ['x'] });
  });

  it('refuses a PATCH that would break the publish checks of a published resource, changing nothing', async () => {
    // Prepare
    const id = await givenPublishedResource(api, owner);
    // Act
    const refused = await api.as(owner.apiKey).patch(`${base}/${id}`, { openApiSpec: { openapi: '3.0.3' } });
    const read = await api.as(owner.apiKey).get(`${base}/${id}`);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toMatchObject({ check: 'openApiSpec' });
    expect(read.body.data).toMatchObject({ version: 1, openApiSpec: { openapi: '3.0.3', info: { title: 'Weather' } } });
  });

  it('refuses an empty PATCH and a bad field with VALIDATION_ERROR', async () => {
    // Prepare
    const id = (await create(owner, resourceInput())).body.data.id;
    // Act
    const empty = await api.as(owner.apiKey).patch(`${base}/${id}`, {});
    const bad = await api.as(owner.apiKey).patch(`${base}/${id}`, { pricing: { model: 'gratis' } });
    // Assess
    expect(empty.status).toBe(400);
    expect(bad.body.error.details).toMatchObject({ field: 'pricing.model', value: 'gratis' });
  });
});

describe('resources: delete', () => {
  it('refuses while installations are active (409), then deletes once uninstalled', async () => {
    // Prepare
    const id = await givenPublishedResource(api, owner);
    await givenInstalled(api, other, id);
    // Act
    const refused = await api.as(owner.apiKey).delete(`${base}/${id}`);
    const stillThere = await api.as(owner.apiKey).get(`${base}/${id}`);
    const uninstalled = await api.as(other.apiKey).delete(`${base}/${id}/install`);
    const deleted = await api.as(owner.apiKey).delete(`${base}/${id}`);
    const gone = await api.as(owner.apiKey).get(`${base}/${id}`);
    // Assess
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: 'CONFLICT', details: { activeInstallations: 1 } });
    expect(stillThere.status).toBe(200);
    expect(uninstalled.body).toEqual({ success: true, message: expect.any(String) });
    expect(deleted.body).toEqual({ success: true, message: expect.any(String) });
    expect(gone.status).toBe(404);
  });
});

describe('resources: cross-user isolation', () => {
  it('lets another user neither patch, publish, unpublish, delete nor read the metrics, and changes nothing', async () => {
    // Prepare
    const published = await givenPublishedResource(api, owner);
    const draft = (await create(owner, resourceInput())).body.data.id;
    const as = api.as(other.apiKey);
    // Act
    const answers = await Promise.all([
      as.patch(`${base}/${published}`, { description: 'hijacked' }),
      as.post(`${base}/${published}/unpublish`),
      as.delete(`${base}/${published}`),
      as.get(`${base}/${published}/metrics`),
      as.patch(`${base}/${draft}`, { description: 'hijacked' }),
      as.post(`${base}/${draft}/publish`),
      as.delete(`${base}/${draft}`),
      as.get(`${base}/${draft}/metrics`),
    ]);
    const [publishedNow, draftNow] = await Promise.all([api.as(owner.apiKey).get(`${base}/${published}`), api.as(owner.apiKey).get(`${base}/${draft}`)]);
    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([403, 403, 403, 403, 404, 404, 404, 404]);
    expect(publishedNow.body.data).toMatchObject({ status: 'published', description: 'Forecasts by city' });
    expect(draftNow.body.data).toMatchObject({ status: 'draft', description: 'Forecasts by city' });
  });
});

describe('resources: key scopes', () => {
  it('refuses changes with a key narrowed to calling (403) but lets it read', async () => {
    // Prepare
    const id = await givenPublishedResource(api, owner);
    const narrow = (await api.as(owner.apiKey).post('/api/sdk/v1/keys', { name: 'calls only', scopes: ['resources:call'] })).body.data.apiKey as string;
    // Act
    const created = await create({ ...owner, apiKey: narrow }, resourceInput());
    const deleted = await api.as(narrow).delete(`${base}/${id}`);
    const read = await api.as(narrow).get(`${base}/${id}`);
    // Assess
    expect([created.status, deleted.status]).toEqual([403, 403]);
    expect(created.body.error.code).toBe('FORBIDDEN');
    expect(read.status).toBe(200);
  });
});

describe('resources: marketplace', () => {
  it('lists only published resources with rating and installCount, filtered by category, tags and search', async () => {
    // Prepare
    const marker = `zq${Date.now().toString(36)}`;
    const a = await givenPublishedResource(api, owner, { name: `${marker} alpha`, category: 'crypto', tags: ['prices', 'defi'] });
    const b = await givenPublishedResource(api, owner, { name: 'beta', description: `Sentiment ${marker}`, category: 'ai', tags: ['nlp'] });
    await create(owner, resourceInput({ name: `${marker} draft` }));
    await givenInstalled(api, other, a);
    // Act
    const searched = await api.as(other.apiKey).get(`${base}/marketplace?search=${marker.toUpperCase()}&limit=50`);
    const byCategory = await api.as(other.apiKey).get(`${base}/marketplace?search=${marker}&category=crypto`);
    const byTags = await api.as(other.apiKey).get(`${base}/marketplace?search=${marker}&tags=nlp&tags=other`);
    const byTagList = await api.as(other.apiKey).get(`${base}/marketplace?search=${marker}&tags=defi,zzz`);
    const paged = await api.as(other.apiKey).get(`${base}/marketplace?search=${marker}&limit=1&offset=1`);
    // Assess
    expect(searched.status).toBe(200);
    expect(searched.body.data.total).toBe(2);
    expect(searched.body.data.resources.find((item: { id: string }) => item.id === a)).toEqual({
      id: a,
      name: `${marker} alpha`,
      description: 'Forecasts by city',
      resourceType: 'api',
      category: 'crypto',
      tags: ['prices', 'defi'],
      pricing: { model: 'pay-per-call', basePrice: 0.01 },
      rating: 0,
      reviewCount: 0,
      installCount: 1,
      publishedAt: expect.any(String),
    });
    expect(byCategory.body.data.resources.map((item: { id: string }) => item.id)).toEqual([a]);
    expect(byTags.body.data.resources.map((item: { id: string }) => item.id)).toEqual([b]);
    expect(byTagList.body.data.resources.map((item: { id: string }) => item.id)).toEqual([a]);
    expect(paged.body.data).toMatchObject({ total: 2, limit: 1, offset: 1 });
  });

  it('answers with the defaults limit 10 and offset 0, and refuses a limit over 100', async () => {
    // Act
    const defaults = await api.as(other.apiKey).get(`${base}/marketplace`);
    const refused = await api.as(other.apiKey).get(`${base}/marketplace?limit=500`);
    // Assess
    expect(defaults.body.data).toMatchObject({ limit: 10, offset: 0 });
    expect(refused.status).toBe(400);
    expect(refused.body.error.details).toMatchObject({ field: 'limit', value: '500' });
  });
});

describe('resources: install and uninstall', () => {
  it('installs once (201, active, not authenticated) and refuses a second install with CONFLICT', async () => {
    // Prepare
    const id = await givenPublishedResource(api, owner);
    // Act
    const first = await api.as(other.apiKey).post(`${base}/${id}/install`);
    const second = await api.as(other.apiKey).post(`${base}/${id}/install`);
    const listed = await api.as(other.apiKey).get(`${base}/installations?limit=100`);
    // Assess
    expect(first.status).toBe(201);
    expect(first.body.data).toEqual({
      installationId: expect.stringMatching(/^ins_/),
      resourceId: id,
      userId: other.userId,
      isAuthenticated: false,
      status: 'active',
      installedAt: expect.any(String),
      version: 1,
    });
    expect(second.status).toBe(409);
    expect(listed.body.data.installations.filter((item: { resourceId: string }) => item.resourceId === id)).toEqual([
      expect.objectContaining({ installationId: first.body.data.installationId, resourceName: expect.any(String), isAuthenticated: false, lastUsedAt: null }),
    ]);
  });

  it("refuses installing another user's draft (404), an own draft (409) and uninstalling what is not installed (409)", async () => {
    // Prepare
    const draft = (await create(owner, resourceInput())).body.data.id;
    const published = await givenPublishedResource(api, owner);
    // Act
    const othersDraft = await api.as(other.apiKey).post(`${base}/${draft}/install`);
    const ownDraft = await api.as(owner.apiKey).post(`${base}/${draft}/install`);
    const notInstalled = await api.as(other.apiKey).delete(`${base}/${published}/install`);
    // Assess
    expect(othersDraft.status).toBe(404);
    expect(ownDraft.status).toBe(409);
    expect(notInstalled.status).toBe(409);
    expect(notInstalled.body.error.details).toMatchObject({ reason: 'not_installed' });
  });

  it('answers NOT_FOUND with the looked-up id for ids of any shape that name nothing, and installs nothing', async () => {
    // Prepare
    const before = await api.as(other.apiKey).get(`${base}/installations?limit=100`);
    // Act
    const answers = [
      await api.as(other.apiKey).get(`${base}/not-an-id`),
      await api.as(other.apiKey).post(`${base}/not-an-id/install`),
      await api.as(other.apiKey).get(`${base}/not-an-id/metrics`),
      await api.as(other.apiKey).get(`${base}/installations/not-an-id/usage`),
      await api.as(other.apiKey).post(`${base}/installations/not-an-id/upgrade`),
    ];
    const after = await api.as(other.apiKey).get(`${base}/installations?limit=100`);
    // Assess
    expect(answers.map((answer) => answer.status)).toEqual([404, 404, 404, 404, 404]);
    expect(answers.map((answer) => answer.body.error.code)).toEqual(['NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND', 'NOT_FOUND']);
    expect(answers[0]!.body.error.details).toEqual({ resourceId: 'not-an-id' });
    expect(answers[3]!.body.error.details).toEqual({ installationId: 'not-an-id' });
    expect(after.body.data.total).toBe(before.body.data.total);
  });
});
