// GET /api/sdk/v1/executions?parentExecutionId=: a run's children, never another tenant's. Naming someone else's run as
// the parent shows nothing of theirs, and a value that is no id is refused with the field named, changing nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowsPath, givenTimeFlow } from '../support/flows.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let stranger: TestUser;
let flowRunId: string;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, stranger] = await Promise.all([api.givenUser(), api.givenUser()]);
  const flowId = (await givenTimeFlow(api, owner, (await givenDeployed(api, owner)).id)).id;
  await api.as(owner.apiKey).post(flowsPath('runFlow'), { flowId });
  const listed = (await api.as(owner.apiKey).get('/api/sdk/v1/executions?kind=flow')).body.data.executions;
  flowRunId = listed[0].executionId;
});
afterAll(() => api.stop());

const children = (user: TestUser, parent: string) => api.as(user.apiKey).get(`/api/sdk/v1/executions?parentExecutionId=${encodeURIComponent(parent)}`);

describe('hardening: the children of a run', () => {
  it("lists a flow run's script run to its owner and nothing to another tenant naming it", async () => {
    // Act
    const mine = await children(owner, flowRunId);
    const theirs = await children(stranger, flowRunId);
    // Assess
    expect(mine.status, mine.text).toBe(200);
    expect(mine.body.data.executions).toEqual([expect.objectContaining({ kind: 'script', parentExecutionId: flowRunId, rootExecutionId: flowRunId })]);
    expect(theirs.status, theirs.text).toBe(200);
    expect(theirs.body.data).toMatchObject({ total: 0, executions: [] });
  });

  it.each([
    ['an empty id', '?parentExecutionId='],
    ['an id past 200 characters', `?parentExecutionId=${'e'.repeat(201)}`],
  ])('refuses %s with VALIDATION_ERROR naming parentExecutionId', async (_what, query) => {
    // Act
    const refused = await api.as(owner.apiKey).get(`/api/sdk/v1/executions${query}`);
    // Assess
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'parentExecutionId' } });
  });
});
