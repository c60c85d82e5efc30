// Scripts between users: the marketplace, install, reviews, delete rules, isolation on every operation and
// VALIDATION_ERROR on every operation's bad input.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamo, tableName } from '../../functions/platform/dynamo.js';
import type { ApiResponse } from '../support/platform.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { execute, getScript, givenListed, givenScript, nodeEcho, rest, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, other] = await Promise.all([api.givenUser(), api.givenUser()]);
});
afterAll(() => api.stop());

const unique = (prefix: string) => `${prefix}-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

describe('scripts: marketplace', () => {
  it('filters by name, tags, category, pricing model, integrations and search, and sorts as asked', async () => {
    // Prepare
    const tag = unique('market');
    const alpha = await givenListed(api, owner, {
      name: `alpha ${tag}`,
      tags: [tag, 'mail'],
      category: 'notification',
      config: { allowedResources: ['mailer'] },
    });
    const beta = await givenListed(api, owner, { name: `beta ${tag}`, tags: [tag], category: 'reporting', description: 'weekly numbers' });
    await api.as(other.apiKey).post(`${rest}/${beta.id}/install`);
    const query = (body: Record<string, unknown>) => api.as(other.apiKey).post(sdk('listMarketplaceScripts'), { tags: [tag], ...body });
    const ids = (response: ApiResponse) => response.body.data.scripts.map((script: { id: string }) => script.id);
    // Act
    const byName = await query({ name: `alpha ${tag}` });
    const byCategory = await query({ category: 'reporting' });
    const byPricing = await query({ pricingModel: 'subscription' });
    const byIntegration = await query({ requiredIntegrations: ['mailer'] });
    const bySearch = await query({ search: 'WEEKLY' });
    const byNameAsc = await query({ sortBy: 'name', sortOrder: 'asc' });
    const byInstalls = await query({ sortBy: 'installCount' });
    const paged = await query({ sortBy: 'name', sortOrder: 'asc', limit: 1, offset: 1 });
    // Assess
    expect(ids(byName)).toEqual([alpha.id]);
    expect(ids(byCategory)).toEqual([beta.id]);
    expect(ids(byPricing)).toEqual([]);
    expect(ids(byIntegration)).toEqual([alpha.id]);
    expect(ids(bySearch)).toEqual([beta.id]);
    expect(ids(byNameAsc)).toEqual([alpha.id, beta.id]);
    expect(ids(byInstalls)).toEqual([beta.id, alpha.id]);
    expect(paged.body.data).toMatchObject({ total: 2, limit: 1, offset: 1, scripts: [{ id: beta.id }] });
    expect(byName.body.data.scripts[0]).toEqual({
      id: alpha.id,
      name: `alpha ${tag}`,
      description: 'a test script',
      activeVersion: 1,
      activeSemver: '1.0.0',
      isPublished: true,
      status: 'published',
      deploymentStatus: 'deployed',
      totalExecutions: 1,
      createdAt: expect.any(String),
    });
  });
});

describe('scripts: install, reviews and delete', () => {
  it('lets another user install, run as themselves, review and uninstall; the owner deletes only after that', async () => {
    // Prepare
    const script = await givenListed(api, owner, { code: 'export async function handler(event, context) { return context.userId; }' });
    // Act
    const installed = await api.as(other.apiKey).post(`${rest}/${script.id}/install`);
    const twice = await api.as(other.apiKey).post(`${rest}/${script.id}/install`);
    const run = await execute(api, other, script.id);
    const review = await api.as(other.apiKey).post(`${rest}/${script.id}/reviews`, { rating: 4, comment: 'handy' });
    const refusedDelete = await api.as(owner.apiKey).delete(`${rest}/${script.id}`);
    const stillThere = await getScript(api, owner, script.id);
    const uninstalled = await api.as(other.apiKey).delete(`${rest}/${script.id}/install`);
    const deleted = await api.as(owner.apiKey).post(sdk('deleteScript'), { scriptId: script.id });
    const gone = await api.as(owner.apiKey).post(sdk('getScript'), { scriptId: script.id });
    const keyAfter = await api.request('POST', sdk('executeScript'), { body: { scriptId: script.id }, headers: { 'x-api-key': script.apiKey } });
    // Assess
    expect(installed.status).toBe(201);
    expect(installed.body.data).toEqual({
      installationId: expect.stringMatching(/^sin_/),
      scriptId: script.id,
      userId: other.userId,
      status: 'active',
      installedAt: expect.any(String),
    });
    expect(twice.status).toBe(409);
    expect(run.body.data.output).toBe(other.userId);
    expect(review.status).toBe(201);
    expect(refusedDelete.status).toBe(409);
    expect(refusedDelete.body.error).toMatchObject({ code: 'CONFLICT', details: { activeInstallations: 1, activeSubscriptions: 0 } });
    expect(stillThere).toMatchObject({ id: script.id, totalExecutions: 2 });
    expect(uninstalled.body).toEqual({ success: true, message: `script ${script.id} uninstalled` });
    expect(deleted.body.data).toEqual({ deleted: true, scriptId: script.id, hardDeleted: true, installationsRemoved: 1, preservedInstallations: 0 });
    expect(gone.status).toBe(404);
    expect(keyAfter.status).toBe(401);
  });

  it('shows rating and installs in the REST marketplace, lists the reviews, and keeps runs private to whoever ran them', async () => {
    // Prepare
    const tag = unique('rated');
    const script = await givenListed(api, owner, { tags: [tag] });
    await api.as(other.apiKey).post(`${rest}/${script.id}/install`);
    await api.as(other.apiKey).post(`${rest}/${script.id}/reviews`, { rating: 5 });
    await execute(api, other, script.id);
    // Act
    const market = await api.as(other.apiKey).get(`${rest}/marketplace?tags=${tag}`);
    const reviews = await api.as(owner.apiKey).get(`${rest}/${script.id}/reviews`);
    const ownerRuns = await api.as(owner.apiKey).get(`${rest}/${script.id}/executions`);
    const otherRuns = await api.as(other.apiKey).get(`${rest}/${script.id}/executions`);
    // Assess
    expect(market.body.data.scripts[0]).toMatchObject({ id: script.id, rating: 5, installCount: 1 });
    expect(reviews.body.data).toEqual({
      reviews: [
        { reviewId: expect.any(String), itemType: 'script', itemId: script.id, userId: other.userId, rating: 5, comment: null, createdAt: expect.any(String) },
      ],
      rating: 5,
      reviewCount: 1,
      total: 1,
      limit: 10,
      offset: 0,
    });
    expect(ownerRuns.body.data.total).toBe(1);
    expect(otherRuns.body.data.total).toBe(1);
    expect(otherRuns.body.data.executions[0].executionId).not.toBe(ownerRuns.body.data.executions[0].executionId);
  });

  it('refuses to delete a script with an enabled event subscription and keeps it', async () => {
    // Prepare
    const script = await givenScript(api, owner);
    await dynamo().send(
      new PutCommand({
        TableName: tableName('scriptSubscriptions'),
        Item: { scriptId: script.id, subscriptionId: 'sub_test', eventType: 'chatapp.message', enabled: true },
      }),
    );
    // Act
    const refused = await api.as(owner.apiKey).post(sdk('deleteScript'), { scriptId: script.id });
    // Assess
    expect(refused.status).toBe(409);
    expect(refused.body.error.details).toMatchObject({ activeInstallations: 0, activeSubscriptions: 1 });
    expect(await getScript(api, owner, script.id)).toMatchObject({ id: script.id });
  });
});

describe('scripts: isolation between users', () => {
  it("answers every operation on another user's private script with NOT_FOUND and changes nothing", async () => {
    // Prepare
    const script = await givenScript(api, owner);
    const run = await execute(api, owner, script.id);
    const executionId = run.body.data.executionId;
    const as = api.as(other.apiKey);
    const id = script.id;
    const calls: Array<[string, () => Promise<ApiResponse>]> = [
      ['GET script', () => as.get(`${rest}/${id}`)],
      ['PATCH', () => as.patch(`${rest}/${id}`, { description: 'mine now' })],
      ['DELETE', () => as.delete(`${rest}/${id}`)],
      ['REST execute', () => as.post(`${rest}/${id}/execute`, {})],
      ['REST versions', () => as.post(`${rest}/${id}/versions`, { code: nodeEcho('x'), version: '9.0.0' })],
      ['REST list versions', () => as.get(`${rest}/${id}/versions`)],
      ['REST deploy', () => as.post(`${rest}/${id}/deploy`, { versionId: 'ver_x' })],
      ['REST executions', () => as.get(`${rest}/${id}/executions`)],
      ['REST execution', () => as.get(`${rest}/${id}/executions/${executionId}`)],
      ['REST metrics', () => as.get(`${rest}/${id}/metrics`)],
      ['REST publish', () => as.post(`${rest}/${id}/publish`, {})],
      ['REST unpublish', () => as.post(`${rest}/${id}/unpublish`, {})],
      ['install', () => as.post(`${rest}/${id}/install`)],
      ['uninstall', () => as.delete(`${rest}/${id}/install`)],
      ['review', () => as.post(`${rest}/${id}/reviews`, { rating: 1 })],
      ['reviews', () => as.get(`${rest}/${id}/reviews`)],
      ['deleteScript', () => as.post(sdk('deleteScript'), { scriptId: id })],
      ['createVersion', () => as.post(sdk('createVersion'), { scriptId: id, code: nodeEcho('x') })],
      ['listVersions', () => as.post(sdk('listVersions'), { scriptId: id })],
      ['deployScript', () => as.post(sdk('deployScript'), { scriptId: id })],
      ['executeScript', () => as.post(sdk('executeScript'), { scriptId: id })],
      ['getScript', () => as.post(sdk('getScript'), { scriptId: id })],
      ['getExecutions', () => as.post(sdk('getExecutions'), { scriptId: id })],
      ['getExecution', () => as.post(sdk('getExecution'), { executionId })],
      ['publishScript', () => as.post(sdk('publishScript'), { scriptId: id })],
      ['unpublishScript', () => as.post(sdk('unpublishScript'), { scriptId: id })],
      ['getMetrics', () => as.post(sdk('getMetrics'), { scriptId: id })],
      ['lintScript', () => as.post(sdk('lintScript'), { code: nodeEcho('x'), scriptId: id })],
    ];
    // Act
    const answers = await Promise.all(calls.map(([, call]) => call()));
    const othersList = await as.post(sdk('listScripts'), {});
    // Assess
    answers.forEach((answer, i) => {
      expect([calls[i]![0], answer.status, answer.body.error?.code]).toEqual([calls[i]![0], 404, 'NOT_FOUND']);
    });
    expect(othersList.body.data.scripts.map((item: { id: string }) => item.id)).not.toContain(id);
    expect(await getScript(api, owner, id)).toMatchObject({ description: 'a test script', activeVersion: null, status: 'draft', totalExecutions: 1 });
    expect((await api.as(owner.apiKey).post(sdk('listVersions'), { scriptId: id })).body.data.count).toBe(1);
  });

  it("answers changes to another user's published script with FORBIDDEN and changes nothing", async () => {
    // Prepare
    const script = await givenListed(api, owner);
    const as = api.as(other.apiKey);
    // Act
    const answers = await Promise.all([
      as.patch(`${rest}/${script.id}`, { description: 'mine now' }),
      as.post(sdk('createVersion'), { scriptId: script.id, code: nodeEcho('x') }),
      as.post(sdk('deployScript'), { scriptId: script.id }),
      as.post(sdk('unpublishScript'), { scriptId: script.id }),
      as.post(sdk('deleteScript'), { scriptId: script.id }),
      as.post(sdk('getMetrics'), { scriptId: script.id }),
      as.post(sdk('executeScript'), { scriptId: script.id }),
    ]);
    // Assess
    for (const answer of answers) expect(answer.body.error.code).toBe('FORBIDDEN');
    expect(await getScript(api, owner, script.id)).toMatchObject({ description: 'a test script', status: 'published', totalExecutions: 1 });
  });
});

describe('scripts: the script behind a flow', () => {
  it("reads a flow's script for the flow's owner only, and copies a listed script before changing it", async () => {
    // Prepare
    const script = await givenListed(api, owner, { code: nodeEcho('shared') });
    const flow = await api
      .as(owner.apiKey)
      .post('/api/sdk/v1/flows/createTimeFlow', { title: 'nightly', description: 'runs the script', schedule: '0 3 * * *', scriptId: script.id });
    const flowId = flow.body.data.id;
    await api.as(other.apiKey).post(`${rest}/${script.id}/install`);
    const othersFlow = await api
      .as(other.apiKey)
      .post('/api/sdk/v1/flows/createTimeFlow', { title: 'mine', description: 'uses the shared script', schedule: '0 4 * * *', scriptId: script.id });
    // Act
    const read = await api.as(owner.apiKey).post(sdk('getFlowScript'), { flowId });
    const stranger = await api.as(other.apiKey).post(sdk('getFlowScript'), { flowId });
    const strangerModify = await api.as(other.apiKey).post(sdk('modifyFlowScript'), { flowId, newCode: nodeEcho('hijack') });
    const copied = await api
      .as(other.apiKey)
      .post(sdk('modifyFlowScript'), { flowId: othersFlow.body.data.id, newCode: nodeEcho('mine'), commitMessage: 'my change' });
    // Assess
    expect(flow.status).toBe(200);
    expect(read.body.data).toEqual({
      code: nodeEcho('shared'),
      version: 1,
      scriptId: script.id,
      scriptName: expect.any(String),
      description: 'a test script',
      isOwned: true,
    });
    expect(stranger.body.error).toMatchObject({ code: 'NOT_FOUND', details: { flowId } });
    expect(strangerModify.body.error).toMatchObject({ code: 'NOT_FOUND', details: { flowId } });
    expect(copied.body.data).toEqual({ copied: true, scriptId: expect.stringMatching(/^scr_/), versionId: expect.stringMatching(/^ver_/), version: 1 });
    expect((await api.as(other.apiKey).post(sdk('getFlowScript'), { flowId: othersFlow.body.data.id })).body.data).toMatchObject({
      scriptId: copied.body.data.scriptId,
      isOwned: true,
    });
    expect((await api.as(owner.apiKey).post(sdk('getFlowScript'), { flowId })).body.data.code).toBe(nodeEcho('shared'));
  });
});

describe('scripts: bad input', () => {
  it('answers bad input to every operation with VALIDATION_ERROR, the field and the value, and changes nothing', async () => {
    // Prepare
    const script = await givenScript(api, owner);
    const as = api.as(owner.apiKey);
    const id = script.id;
    const cases: Array<[string, () => Promise<ApiResponse>, string, unknown]> = [
      ['REST create', () => as.post(rest, { name: '', code: nodeEcho('x') }), 'name', ''],
      ['REST create runtime', () => as.post(rest, { name: 'x', code: nodeEcho('x'), runtime: 'ruby' }), 'runtime', 'ruby'],
      ['REST list', () => as.get(`${rest}?status=running`), 'status', 'running'],
      ['PATCH', () => as.patch(`${rest}/${id}`, { config: { memory: 64 } }), 'config.memory', 64],
      ['REST execute', () => as.post(`${rest}/${id}/execute`, { data: 'text' }), 'data', 'text'],
      ['REST version', () => as.post(`${rest}/${id}/versions`, { code: nodeEcho('x'), version: 'two' }), 'version', 'two'],
      ['REST deploy', () => as.post(`${rest}/${id}/deploy`, { versionId: 7 }), 'versionId', 7],
      ['REST executions', () => as.get(`${rest}/${id}/executions?status=completed`), 'status', 'completed'],
      ['REST executions dates', () => as.get(`${rest}/${id}/executions?startDate=yesterday`), 'startDate', 'yesterday'],
      ['REST publish', () => as.post(`${rest}/${id}/publish`, { pricing: { model: 'barter' } }), 'pricing.model', 'barter'],
      ['REST unpublish', () => as.post(`${rest}/${id}/unpublish`, { now: true }), 'now', true],
      ['REST marketplace', () => as.get(`${rest}/marketplace?limit=500`), 'limit', '500'],
      ['review', () => as.post(`${rest}/${id}/reviews`, { rating: 6 }), 'rating', 6],
      ['createScript', () => as.post(sdk('createScript'), { name: 'x' }), 'code', null],
      ['deleteScript', () => as.post(sdk('deleteScript'), {}), 'scriptId', null],
      ['createVersion', () => as.post(sdk('createVersion'), { scriptId: id, code: '' }), 'code', ''],
      ['listVersions', () => as.post(sdk('listVersions'), { scriptId: 42 }), 'scriptId', 42],
      ['deployScript', () => as.post(sdk('deployScript'), { scriptId: id, version: 0 }), 'version', 0],
      ['executeScript', () => as.post(sdk('executeScript'), { scriptId: id, trigger: { type: 'telepathy' } }), 'trigger.type', 'telepathy'],
      ['getScript', () => as.post(sdk('getScript'), {}), 'scriptId', null],
      ['listScripts', () => as.post(sdk('listScripts'), { page: 2 }), 'page', 2],
      ['getExecutions', () => as.post(sdk('getExecutions'), { scriptId: id, status: 'success' }), 'status', 'success'],
      ['publishScript', () => as.post(sdk('publishScript'), { scriptId: id, pricing: { model: 'pay-per-execution', basePrice: 0 } }), 'pricing.basePrice', 0],
      ['unpublishScript', () => as.post(sdk('unpublishScript'), { scriptId: '' }), 'scriptId', ''],
      ['listMarketplaceScripts', () => as.post(sdk('listMarketplaceScripts'), { minRating: 6 }), 'minRating', 6],
      ['listMarketplaceScripts sort', () => as.post(sdk('listMarketplaceScripts'), { sortBy: 'price' }), 'sortBy', 'price'],
      ['getMetrics', () => as.post(sdk('getMetrics'), { scriptId: null }), 'scriptId', null],
      ['getFlowScript', () => as.post(sdk('getFlowScript'), {}), 'flowId', null],
      ['modifyFlowScript', () => as.post(sdk('modifyFlowScript'), { flowId: 'f' }), 'newCode', null],
      ['lintScript', () => as.post(sdk('lintScript'), { code: 'x', scriptInputSchema: { a: { type: 'date' } } }), 'scriptInputSchema.a.type', 'date'],
    ];
    // Act
    const answers = await Promise.all(cases.map(([, call]) => call()));
    // Assess
    answers.forEach((answer, i) => {
      const [what, , field, value] = cases[i]!;
      expect([what, answer.status, answer.body.error?.code, answer.body.error?.details?.field, answer.body.error?.details?.value]).toEqual([
        what,
        400,
        'VALIDATION_ERROR',
        field,
        value,
      ]);
    });
    expect(await getScript(api, owner, id)).toMatchObject({ status: 'draft', activeVersion: null, memory: 128, totalExecutions: 0 });
    expect((await api.as(owner.apiKey).post(sdk('listVersions'), { scriptId: id })).body.data.count).toBe(1);
  });
  it('answers NOT_FOUND with the looked-up id to ids that name nothing, whatever their shape, and changes nothing', async () => {
    // Prepare
    const script = await givenScript(api, owner);
    const as = api.as(owner.apiKey);
    const cases: Array<[string, () => Promise<ApiResponse>, Record<string, string>]> = [
      ['REST get', () => as.get(`${rest}/not-an-id`), { scriptId: 'not-an-id' }],
      ['DELETE', () => as.delete(`${rest}/bad id`), { scriptId: 'bad id' }],
      ['REST list versions', () => as.get(`${rest}/x/versions`), { scriptId: 'x' }],
      ['REST execution', () => as.get(`${rest}/${script.id}/executions/nope`), { executionId: 'nope' }],
      ['REST metrics', () => as.get(`${rest}/nope/metrics`), { scriptId: 'nope' }],
      ['install', () => as.post(`${rest}/nope/install`), { scriptId: 'nope' }],
      ['uninstall', () => as.delete(`${rest}/nope/install`), { scriptId: 'nope' }],
      ['getExecution', () => as.post(sdk('getExecution'), { executionId: 'x' }), { executionId: 'x' }],
    ];
    // Act
    const answers = await Promise.all(cases.map(([, call]) => call()));
    // Assess
    answers.forEach((answer, i) => {
      const [what, , details] = cases[i]!;
      expect([what, answer.status, answer.body.error?.code, answer.body.error?.details]).toEqual([what, 404, 'NOT_FOUND', details]);
    });
    expect(await getScript(api, owner, script.id)).toMatchObject({ status: 'draft', activeVersion: null, totalExecutions: 0 });
  });
});
