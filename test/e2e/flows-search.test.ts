// searchFlows over HTTP: variant A (minimal and summary detail, filters, pages) and variant B (query, trigger and
// scope filters, data array with meta), and that every change shows in the next search.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { flowsPath, givenEventFlow, givenTimeFlow, unreachableModelEnv } from '../support/flows.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenScript } from '../support/scripts.js';

let api: TestApi;

beforeAll(async () => {
  api = await startTestPlatform();
  Object.assign(process.env, unreachableModelEnv);
});
afterAll(() => api.stop());

const post = (user: TestUser, operation: string, body: unknown) => api.as(user.apiKey).post(flowsPath(operation), body);

describe('flows: searchFlows', () => {
  let user: TestUser;
  let flows: Record<string, any>[];

  beforeAll(async () => {
    user = await api.givenUser();
    const script = (await givenScript(api, user)).id;
    const daily = await givenTimeFlow(api, user, script, { title: 'Daily digest', description: 'Collects the news' });
    const mail = await givenEventFlow(api, user, { title: 'Invoice mail', description: 'Files invoices', scope: 'team' });
    const chat = await givenEventFlow(api, user, {
      title: 'Chat alerts',
      description: 'Watches the DIGEST channel',
      eventType: 'chatapp.message',
      conditions: { field: 'text', operator: 'contains', value: 'alert' },
    });
    await post(user, 'pauseFlow', { assignmentId: mail.id });
    flows = [chat, mail, daily];
  });
  const ids = (items: Array<Record<string, any>>) => items.map((item) => item.id as string);

  it('variant A: minimal by default, newest first, with status and trigger type filters and pages', async () => {
    // Act
    const all = await post(user, 'searchFlows', {});
    const active = await post(user, 'searchFlows', { status: 'active' });
    const events = await post(user, 'searchFlows', { triggerType: 'event', limit: 1, offset: 1 });
    // Assess
    expect(all.body).toEqual({ success: true, data: { count: 3, flows: expect.any(Array) } });
    expect(all.body.data.flows[0]).toEqual({ id: flows[0]!.id, title: 'Chat alerts', status: 'active', triggerType: 'event', isActive: true });
    expect(ids(all.body.data.flows)).toEqual(ids(flows));
    expect(ids(active.body.data.flows)).toEqual([flows[0]!.id, flows[2]!.id]);
    expect(events.body.data).toEqual({ count: 2, flows: [expect.objectContaining({ id: flows[1]!.id, status: 'paused', isActive: false })] });
  });

  it('variant A: the summary detail adds description, schedule, script, counters and creation time', async () => {
    // Act
    const summary = await post(user, 'searchFlows', { detail: 'summary', triggerType: 'time' });
    // Assess
    expect(summary.body.data.flows).toEqual([
      {
        id: flows[2]!.id,
        title: 'Daily digest',
        status: 'active',
        triggerType: 'time',
        isActive: true,
        description: 'Collects the news',
        cronExpression: '0 9 * * 1-5',
        scriptId: flows[2]!.scriptId,
        executionCount: 0,
        lastExecutedAt: null,
        createdAt: flows[2]!.createdAt,
        warnings: [],
      },
    ]);
  });

  it('variant B: query over title and description, trigger and scope filters, data array and meta', async () => {
    // Act
    const byQuery = await post(user, 'searchFlows', { query: 'digest' });
    const byTrigger = await post(user, 'searchFlows', { trigger: { type: 'event', eventType: 'mailapp.email_received' } });
    const byScope = await post(user, 'searchFlows', { scope: 'team', status: 'paused' });
    const paged = await post(user, 'searchFlows', { query: '', limit: 2, offset: 2 });
    // Assess
    expect(byQuery.body).toEqual({ success: true, data: expect.any(Array), meta: { total: 2, limit: 50, offset: 0 } });
    expect(ids(byQuery.body.data)).toEqual([flows[0]!.id, flows[2]!.id]);
    expect(byQuery.body.data[1]).toEqual({
      id: flows[2]!.id,
      title: 'Daily digest',
      description: 'Collects the news',
      status: 'active',
      trigger: flows[2]!.trigger,
      executionCount: 0,
      lastExecutedAt: null,
      warnings: [],
    });
    expect(ids(byTrigger.body.data)).toEqual([flows[1]!.id]);
    expect(ids(byScope.body.data)).toEqual([flows[1]!.id]);
    expect(paged.body.meta).toEqual({ total: 3, limit: 2, offset: 2 });
    expect(ids(paged.body.data)).toEqual([flows[2]!.id]);
  });
});

describe('flows: searchFlows sees every change at once', () => {
  it('shows a rename, a pause and a new execution count in the next search', async () => {
    // Prepare
    const user = await api.givenUser();
    const script = (await givenScript(api, user)).id;
    const flow = await givenTimeFlow(api, user, script, { title: 'Before rename' });
    const first = await post(user, 'searchFlows', { detail: 'summary' });
    // Act
    await post(user, 'updateFlow', { assignmentId: flow.id, title: 'After rename' });
    await post(user, 'runFlow', { assignmentId: flow.id });
    await post(user, 'pauseFlow', { assignmentId: flow.id });
    const second = await post(user, 'searchFlows', { detail: 'summary' });
    const byQuery = await post(user, 'searchFlows', { query: 'after' });
    // Assess
    expect(first.body.data.flows[0]).toMatchObject({ title: 'Before rename', status: 'active', executionCount: 0, lastExecutedAt: null });
    expect(second.body.data.flows[0]).toMatchObject({
      title: 'After rename',
      status: 'paused',
      isActive: false,
      executionCount: 1,
      lastExecutedAt: expect.any(String),
    });
    expect(byQuery.body.data).toEqual([expect.objectContaining({ id: flow.id, executionCount: 1 })]);
  });
});
