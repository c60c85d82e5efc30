// A day of ordinary use over HTTP, past the dead ends a new user met: one name for a flow's schedule on read and write,
// cron day names, validation messages in words, a step's own error code kept on its run, reruns and callbacks that say
// what is there, and the event that woke a waiting run traced in its deliveries.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowsPath, timeFlowInput } from '../support/flows.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenScript } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let scriptId: string;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
  scriptId = (await givenScript(api, owner)).id;
});
afterAll(() => api.stop());

const postFlow = (operation: string, body: unknown) => api.as(owner.apiKey).post(flowsPath(operation), body);

describe('daily use: a flow schedule has one name', () => {
  it('takes cronExpression, the name reads return, as the schedule on create and update, with day names', async () => {
    // Act
    const created = await postFlow('createTimeFlow', timeFlowInput(scriptId, { schedule: undefined, cronExpression: '0 9 * * MON-FRI' }));
    const updated = await postFlow('updateFlow', { flowId: created.body.data.id, cronExpression: '30 8 * JAN SUN' });
    // Assess
    expect(created.status).toBe(200);
    expect(created.body.data.trigger.config).toEqual({ cronExpression: '0 9 * * MON-FRI' });
    expect(updated.status).toBe(200);
    expect(updated.body.data.trigger.config).toEqual({ cronExpression: '30 8 * JAN SUN' });
  });

  it('refuses a schedule and a cronExpression that differ, and a missing one in words, creating nothing', async () => {
    // Prepare
    const before = (await postFlow('searchFlows', { detail: 'minimal', limit: 100 })).body.data.count;
    // Act
    const both = await postFlow('createTimeFlow', timeFlowInput(scriptId, { cronExpression: '0 10 * * *' }));
    const neither = await postFlow('createTimeFlow', timeFlowInput(scriptId, { schedule: undefined }));
    const after = (await postFlow('searchFlows', { detail: 'minimal', limit: 100 })).body.data.count;
    // Assess
    expect(both.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'cronExpression' } });
    expect(neither.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'schedule' } });
    expect(neither.body.error.message).toBe('schedule: schedule (or cronExpression: the cron, 5 fields, UTC) is required');
    expect(after).toBe(before);
  });

  it('words a wrong type for people: an object, not a record', async () => {
    // Act
    const res = await api.as(owner.apiKey).post('/api/sdk/v1/scripts/createSchedule', { scriptId, name: 'nightly', cronExpression: '0 2 * * *', data: 'x' });
    const missing = await api.as(owner.apiKey).post('/api/sdk/v1/scripts/createSchedule', { scriptId, cronExpression: '0 2 * * *' });
    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'data: expected an object, got a string', details: { field: 'data' } });
    expect(missing.body.error).toMatchObject({ code: 'VALIDATION_ERROR', message: 'name: is required', details: { field: 'name' } });
  });
});
