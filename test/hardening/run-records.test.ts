// The one run record over HTTP against hostile input: GET /api/sdk/v1/executions/{executionId} answers only the
// caller's runs (another user's id and odd ids are NOT_FOUND or VALIDATION_ERROR, never a 500), and the runs list refuses
// odd filters with the envelope, taking every status word of every vocabulary.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { execute, givenDeployed } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let other: TestUser;
let executionId: string;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, other] = await Promise.all([api.givenUser(), api.givenUser()]);
  const script = await givenDeployed(api, owner);
  executionId = (await execute(api, owner, script.id, { n: 1 })).body.data.executionId;
});
afterAll(() => api.stop());

describe('one run by id', () => {
  it("reads the caller's script run as a record of kind script at the top of its tree", async () => {
    // Act
    const read = await api.as(owner.apiKey).get(`/api/sdk/v1/executions/${executionId}`);
    // Assess
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ executionId, kind: 'script', parentExecutionId: null, rootExecutionId: executionId, status: 'completed' });
  });

  it("answers NOT_FOUND for another user's run, as for an unknown one", async () => {
    // Act
    const theirs = await api.as(other.apiKey).get(`/api/sdk/v1/executions/${executionId}`);
    const unknown = await api.as(other.apiKey).get('/api/sdk/v1/executions/exe_doesnotexist');
    // Assess
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('NOT_FOUND');
    expect(unknown.status).toBe(404);
  });

  it.each([`x${'a'.repeat(300)}`, '%00', 'exe_%E2%80%AE', '..%2F..'])('refuses the id %s with an envelope, never a 500', async (id) => {
    // Act
    const refused = await api.as(owner.apiKey).get(`/api/sdk/v1/executions/${id}`);
    // Assess
    expect([400, 404]).toContain(refused.status);
    expect(refused.body.success).toBe(false);
  });
});

describe('the runs list', () => {
  it.each(['cancelled', 'timeout', 'queued', 'success', 'error', 'completed', 'failed'])('takes status=%s', async (status) => {
    // Act
    const listed = await api.as(owner.apiKey).get(`/api/sdk/v1/executions?status=${status}`);
    // Assess
    expect(listed.status).toBe(200);
  });

  it.each([
    ['?status=bogus', 'status'],
    ['?kind=job', 'kind'],
    ['?offset=100000000000000000000', 'offset'],
    ['?offset=-1', 'offset'],
    ['?limit=1e9', 'limit'],
    ['?from=2026-02-01&to=2026-01-01', 'endDate'],
    [`?scriptId=${'s'.repeat(500)}`, 'scriptId'],
  ])('refuses %s with VALIDATION_ERROR naming %s', async (query, field) => {
    // Act
    const refused = await api.as(owner.apiKey).get(`/api/sdk/v1/executions${query}`);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
  });

  it('filters by kind', async () => {
    // Act
    const scripts = await api.as(owner.apiKey).get('/api/sdk/v1/executions?kind=script');
    const flows = await api.as(owner.apiKey).get('/api/sdk/v1/executions?kind=flow');
    // Assess
    expect(scripts.body.data.executions.map((item: { executionId: string }) => item.executionId)).toEqual([executionId]);
    expect(flows.body.data).toMatchObject({ total: 0, executions: [] });
  });
});
