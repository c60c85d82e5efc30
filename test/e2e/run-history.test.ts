// GET /api/sdk/v1/executions: the caller's runs across scripts and flows, and GET /api/sdk/v1/events: the caller's
// events with their deliveries; both with filters and paging, never another user's, and bad filters refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventScripts } from '../support/event-scripts.js';
import { flowsPath, givenTimeFlow } from '../support/flows.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenInstalled, givenPublishedResource, json, startUpstream } from '../support/resources.js';
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
    expect(items).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ kind: 'script', scriptId, flowId: null, trigger: 'manual', status: 'completed', duration: expect.any(Number) }),
        expect.objectContaining({
          kind: 'script',
          scriptId: failingId,
          status: 'failed',
          error: expect.objectContaining({ message: expect.stringContaining('boom') }),
        }),
        expect.objectContaining({ kind: 'script', scriptId, flowId, trigger: 'flow', source: flowId }),
        expect.objectContaining({ kind: 'flow', flowId, scriptId, trigger: 'manual', status: 'completed', parentExecutionId: null }),
      ]),
    );
    // A flow's script run is the flow run's child, in the flow run's tree.
    const flowRun = items.find((item) => item.kind === 'flow')!;
    const scriptRun = items.find((item) => item.trigger === 'flow')!;
    expect(flowRun.rootExecutionId).toBe(flowRun.executionId);
    expect(scriptRun).toMatchObject({ parentExecutionId: flowRun.executionId, rootExecutionId: flowRun.executionId });
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
    expect(manual.body.data.total).toBe(3);
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

describe('event history', () => {
  const events = (user: TestUser, query = '') => api.as(user.apiKey).get(`/api/sdk/v1/events${query}`);
  const publish = async (user: TestUser, event: Record<string, unknown>) =>
    (await api.as(user.apiKey).post('/api/sdk/v1/events', event)).body.data.eventId as string;

  /** Delivery is asynchronous: reads the history until `done` holds. */
  async function waitForHistory(user: TestUser, done: (items: Array<Record<string, any>>) => boolean): Promise<Array<Record<string, any>>> {
    for (;;) {
      const items = (await events(user)).body.data.events as Array<Record<string, any>>;
      if (done(items)) return items;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it("lists the caller's events newest first with each delivery to a subscribed script", async () => {
    // Prepare
    const user = await api.givenUser();
    const subscribedScript = await eventScripts(api).givenScript(user);
    const subscription = await api.as(user.apiKey).post(`/api/sdk/v1/scripts/${subscribedScript}/subscriptions`, { eventType: 'custom.order' });
    // Act
    const ordered = await publish(user, { type: 'custom.order', timestamp: '2026-01-01T10:00:00Z', content: { text: 'order 1' } });
    const pinged = await publish(user, { type: 'custom.ping', timestamp: '2026-01-01T12:30:00+02:00' });
    const items = await waitForHistory(user, (list) => list.length === 2 && list.some((item) => item.deliveries.length === 1));
    // Assess
    expect(items.map((item) => item.eventId)).toEqual([pinged, ordered]);
    expect(items[1]).toMatchObject({ type: 'custom.order', source: 'api', event: { content: { text: 'order 1' } } });
    expect(items[1]!.deliveries).toEqual([
      expect.objectContaining({
        subscriptionId: subscription.body.data.subscriptionId,
        scriptId: subscribedScript,
        result: 'executed',
        status: 'success',
        executionId: expect.stringMatching(/^exe_/),
      }),
    ]);
    expect(items[0]!.deliveries).toEqual([]);
  });

  it('filters by type and date range and pages, and never shows another user\u2019s events', async () => {
    // Prepare
    const [user, stranger] = await Promise.all([api.givenUser(), api.givenUser()]);
    for (const hour of ['08', '09', '10']) await publish(user, { type: 'custom.tick', timestamp: `2026-02-01T${hour}:00:00Z` });
    await publish(user, { type: 'custom.tock', timestamp: '2026-02-01T11:00:00Z' });
    await waitForHistory(user, (list) => list.length === 4);
    // Act
    const ticks = await events(user, '?type=custom.tick');
    const page = await events(user, '?type=custom.tick&limit=1&offset=1');
    const morning = await events(user, '?startDate=2026-02-01T08:30:00Z&endDate=2026-02-01T10:30:00Z');
    const theirs = await events(stranger);
    // Assess
    expect(ticks.body.data.events.map((item: any) => item.timestamp)).toEqual(['2026-02-01T10:00:00Z', '2026-02-01T09:00:00Z', '2026-02-01T08:00:00Z']);
    expect(page.body.data).toMatchObject({ limit: 1, offset: 1, hasMore: true, events: [expect.objectContaining({ timestamp: '2026-02-01T09:00:00Z' })] });
    expect(morning.body.data.events.map((item: any) => item.timestamp)).toEqual(['2026-02-01T10:00:00Z', '2026-02-01T09:00:00Z']);
    expect(theirs.body.data).toMatchObject({ events: [], hasMore: false });
  });

  it.each([
    ['?limit=101', 'limit'],
    ['?offset=1001', 'offset'],
    [`?type=${'x'.repeat(101)}`, 'type'],
    ['?startDate=2026-02-01&endDate=2026-01-01', 'endDate'],
    ['?userId=usr_other', 'userId'],
  ])('refuses %s with VALIDATION_ERROR naming %s', async (query, field) => {
    // Prepare
    const user = await api.givenUser();
    // Act
    const refused = await events(user, query);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect((await events(user)).body.data.events).toEqual([]);
  });
});

describe('following a run\u2019s logs', () => {
  const follow = (user: TestUser, executionId: string, query = '') => api.as(user.apiKey).get(`/api/sdk/v1/executions/${executionId}/logs${query}`);

  it('shows the lines a script printed while it still runs, then the rest and the end', async () => {
    // Prepare: the script prints, then waits on a resource call the upstream holds until the test releases it.
    const upstream = await startUpstream();
    const held: Array<() => void> = [];
    upstream.respond((_request, response) => held.push(() => json(response, 200, { ok: true })));
    const [publisher, user] = await Promise.all([api.givenUser(), api.givenUser()]);
    const name = `held-${Date.now().toString(36)}`;
    await givenInstalled(api, user, await givenPublishedResource(api, publisher, { name }, { baseUrl: upstream.baseUrl }));
    const script = await givenDeployed(api, user, {
      config: { allowedResources: [name] },
      code: `export async function handler() { console.log('first line'); await resources['${name}'].getForecast({ city: 'Oslo' }); console.log('second line'); return 'done'; }`,
    });
    const run = execute(api, user, script.id);
    let executionId: string | undefined;
    while (!executionId) executionId = (await history(user, `?scriptId=${script.id}&status=running`)).body.data.executions[0]?.executionId;
    // Act
    const whileHeld = await follow(user, executionId, '?wait=20');
    const rest = follow(user, executionId, `?after=${whileHeld.body.data.next}&wait=20`);
    held.forEach((release) => {
      release();
    });
    const lines = [...whileHeld.body.data.lines];
    let page = (await rest).body.data;
    lines.push(...page.lines);
    while (!page.done) {
      page = (await follow(user, executionId, `?after=${page.next}&wait=20`)).body.data;
      lines.push(...page.lines);
    }
    // Assess
    expect(whileHeld.body.data).toMatchObject({ executionId, status: 'running', done: false, lines: ['first line'], next: 1 });
    expect(lines).toEqual(['first line', 'second line']);
    expect(page).toMatchObject({ status: 'success', done: true, next: 2 });
    expect((await run).body.data.logs).toEqual(['first line', 'second line']);
    await upstream.close();
  });

  it('answers at once for an ended run, and refuses another user\u2019s run and bad bounds', async () => {
    // Prepare
    const [user, stranger] = await Promise.all([api.givenUser(), api.givenUser()]);
    const script = await givenDeployed(api, user, { code: 'export async function handler() { console.log("only line"); return 1; }' });
    const { executionId } = (await execute(api, user, script.id)).body.data;
    // Act
    const ended = await follow(user, executionId, '?wait=20');
    const theirs = await follow(stranger, executionId);
    const tooLong = await follow(user, executionId, '?wait=21');
    const backwards = await follow(user, executionId, '?after=-1');
    // Assess
    expect(ended.body.data).toEqual({
      executionId,
      status: 'success',
      lines: ['only line'],
      entries: [{ text: 'only line', invocation: 1 }],
      next: 1,
      done: true,
    });
    expect(theirs.status).toBe(404);
    expect(tooLong.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'wait' } });
    expect(backwards.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'after' } });
  });
});
