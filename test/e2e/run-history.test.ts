// GET /api/sdk/v1/executions: the caller's runs across scripts and flows, with filters and paging, never another
// user's, and bad filters refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowsPath, givenTimeFlow } from '../support/flows.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { execute, givenDeployed } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let other: TestUser;
let scriptId: string;
let failingId: string;
let flowId: string;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, other] = await Promise.all([api.givenUser(), api.givenUser()]);
  scriptId = (await givenDeployed(api, owner)).id;
  failingId = (await givenDeployed(api, owner, { code: 'export async function handler() { throw new Error("boom") }' })).id;
  await execute(api, owner, scriptId, { n: 1 });
  await execute(api, owner, failingId);
  flowId = (await givenTimeFlow(api, owner, scriptId)).id;
  await api.as(owner.apiKey).post(flowsPath('runFlow'), { flowId });
  await execute(api, other, (await givenDeployed(api, other)).id);
});
afterAll(() => api.stop());

const history = (user: TestUser, query = '') => api.as(user.apiKey).get(`/api/sdk/v1/executions${query}`);

describe('run history', () => {
  it("lists the caller's script and flow runs newest first, a direct flow's script run tied to its flow", async () => {
    // Act
    const all = await history(owner);
    // Assess
    expect(all.status).toBe(200);
    const items = all.body.data.executions as Array<Record<string, any>>;
    expect(all.body.data).toMatchObject({ total: 4, limit: 20, offset: 0 });
    expect(items.map((item) => item.startedAt)).toEqual([...items.map((item) => item.startedAt)].sort().reverse());
    expect(items).toEqual(expect.arrayContaining([
      expect.objectContaining({ kind: 'script', scriptId, flowId: null, trigger: 'manual', status: 'success', duration: expect.any(Number) }),
      expect.objectContaining({ kind: 'script', scriptId: failingId, status: 'failed', error: expect.objectContaining({ message: expect.stringContaining('boom') }) }),
      expect.objectContaining({ kind: 'script', scriptId, flowId, trigger: 'flow', source: flowId }),
      expect.objectContaining({ kind: 'flow', flowId, scriptId, trigger: 'schedule', status: 'success' }),
    ]));
  });

  it('filters by status, trigger, script, flow and date range, and pages', async () => {
    // Act
    const failed = await history(owner, '?status=failed');
    const manual = await history(owner, '?trigger=manual');
    const ofFlow = await history(owner, `?flowId=${flowId}`);
    const ofScript = await history(owner, `?scriptId=${failingId}`);
    const future = await history(owner, '?startDate=2999-01-01');
    const page = await history(owner, '?limit=1&offset=1');
    // Assess
    expect(failed.body.data.executions.map((item: any) => item.scriptId)).toEqual([failingId]);
    expect(manual.body.data.total).toBe(2);
    expect(ofFlow.body.data.executions.map((item: any) => item.kind).sort()).toEqual(['flow', 'script']);
    expect(ofScript.body.data.total).toBe(1);
    expect(future.body.data).toMatchObject({ total: 0, executions: [] });
    expect(page.body.data).toMatchObject({ total: 4, limit: 1, offset: 1, executions: [expect.any(Object)] });
  });

  it("never shows another user's runs", async () => {
    // Act
    const theirs = await history(other);
    const byMyScript = await history(other, `?scriptId=${scriptId}`);
    // Assess
    expect(theirs.body.data.total).toBe(1);
    expect(byMyScript.body.data.total).toBe(0);
  });

  it.each([
    ['?status=done', 'status'],
    ['?trigger=cron', 'trigger'],
    ['?limit=101', 'limit'],
    ['?startDate=yesterday', 'startDate'],
    ['?startDate=2026-02-01&endDate=2026-01-01', 'endDate'],
    ['?owner=me', 'owner'],
  ])('refuses %s with VALIDATION_ERROR naming %s', async (query, field) => {
    // Act
    const refused = await history(owner, query);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });
});
