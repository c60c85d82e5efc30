// The flow operations over HTTP: create, get, update (the schedule moves with it), pause, resume, delete, bad input
// of every operation (searchFlows included), and isolation between users.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventFlowInput, flowsPath, getFlow, givenEventFlow, givenTimeFlow, timeFlowInput, unreachableModelEnv } from '../support/flows.js';
import { type TestApi, type TestUser, reconfigurePlatform, startTestPlatform } from '../support/platform.js';
import { givenScript } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let other: TestUser;
let scriptId: string;

beforeAll(async () => {
  api = await startTestPlatform();
  reconfigurePlatform(unreachableModelEnv);
  [owner, other] = await Promise.all([api.givenUser(), api.givenUser()]);
  scriptId = (await givenScript(api, owner)).id;
});
afterAll(() => api.stop());

const post = (user: TestUser, operation: string, body: unknown) => api.as(user.apiKey).post(flowsPath(operation), body);
/** The local scheduler's definitions, as `npm start` keeps them under the data directory. */
const scheduleOf = (flowId: string) =>
  (JSON.parse(readFileSync(join(process.env.DATA_DIR!, 'schedules.json'), 'utf8')) as Array<{ name: string; cronExpression: string; enabled: boolean }>).find(
    (schedule) => schedule.name === `flow-${flowId}`,
  );

describe('flows: create and read', () => {
  it('creates a time flow, active with no executions, on a real schedule', async () => {
    // Act
    const created = await post(owner, 'createTimeFlow', timeFlowInput(scriptId, { scope: 'team' }));
    const read = await post(owner, 'getFlow', { assignmentId: created.body.data.id });
    // Assess
    expect(created.status).toBe(200);
    expect(created.body.data).toEqual({
      id: expect.stringMatching(/^flw_/),
      userId: owner.userId,
      title: 'Weekday report',
      description: 'Sends the report every weekday at 9',
      status: 'active',
      scope: 'team',
      trigger: { type: 'time', config: { cronExpression: '0 9 * * 1-5' } },
      scriptId,
      executionType: 'direct',
      prompt: null,
      recommendedTools: [],
      approvalRequired: [],
      approvalAboveUsd: null,
      mcpServers: [],
      executionCount: 0,
      executionResults: [],
      lastExecutedAt: null,
      createdAt: expect.any(String),
      updatedAt: expect.any(String),
      pausedAt: null,
      resumedAt: null,
      warnings: [],
    });
    expect(read.body.data).toEqual(created.body.data);
    expect(scheduleOf(created.body.data.id)).toMatchObject({ cronExpression: '0 9 * * 1-5', enabled: true });
  });

  it('creates an event flow, llm by default or direct with its script', async () => {
    // Act
    const llm = await post(owner, 'createEventFlow', eventFlowInput({ recommendedTools: ['weather.getForecast'] }));
    const direct = await post(owner, 'createEventFlow', eventFlowInput({ executionType: 'direct', scriptId }));
    // Assess
    expect(llm.body.data).toMatchObject({
      status: 'active',
      scope: 'user',
      executionType: 'llm',
      scriptId: null,
      prompt: 'Summarise the e-mail in two sentences.',
      recommendedTools: ['weather.getForecast'],
      trigger: { type: 'event', config: { eventType: 'mailapp.email_received', rootCondition: eventFlowInput().conditions } },
      executionCount: 0,
      executionResults: [],
    });
    expect(direct.body.data).toMatchObject({ executionType: 'direct', scriptId });
  });

  it('accepts the limits of a condition tree: 50 conditions in a group, 5 levels deep', async () => {
    // Prepare
    const condition = (index: number) => ({ field: 'subject', operator: 'contains', value: `w${index}` });
    const wide = { operator: 'OR', conditions: Array.from({ length: 50 }, (_, index) => condition(index)) };
    let deep: unknown = condition(0);
    for (let level = 1; level < 5; level++) deep = { operator: 'AND', conditions: [deep] };
    // Act
    const withWide = await post(owner, 'createEventFlow', eventFlowInput({ conditions: wide }));
    const withDeep = await post(owner, 'createEventFlow', eventFlowInput({ conditions: deep }));
    // Assess
    expect([withWide.status, withDeep.status]).toEqual([200, 200]);
    expect(withWide.body.data.trigger.config.rootCondition).toEqual(wide);
    expect(withDeep.body.data.trigger.config.rootCondition).toEqual(deep);
  });
});

describe('flows: update, pause, resume, delete', () => {
  it('updates the fields given and moves the schedule', async () => {
    // Prepare
    const flow = await givenTimeFlow(api, owner, scriptId);
    // Act
    const updated = await post(owner, 'updateFlow', { assignmentId: flow.id, title: 'Hourly report', schedule: '0 * * * *' });
    // Assess
    expect(updated.body.data).toEqual({
      id: flow.id,
      title: 'Hourly report',
      description: flow.description,
      trigger: { type: 'time', config: { cronExpression: '0 * * * *' } },
      updatedAt: expect.any(String),
    });
    expect(updated.body.data.updatedAt > flow.updatedAt).toBe(true);
    expect(await getFlow(api, owner, flow.id)).toMatchObject({ title: 'Hourly report', trigger: { config: { cronExpression: '0 * * * *' } } });
    expect(scheduleOf(flow.id)).toMatchObject({ cronExpression: '0 * * * *', enabled: true });
  });

  it('changes the conditions, prompt and tools of an event flow', async () => {
    // Prepare
    const flow = await givenEventFlow(api, owner);
    const conditions = {
      operator: 'OR',
      conditions: [
        { field: 'subject', operator: 'regex', value: '^URGENT' },
        { field: 'hasAttachment', operator: 'equals', value: true },
      ],
    };
    // Act
    const updated = await post(owner, 'updateFlow', { assignmentId: flow.id, conditions, prompt: 'Forward it to me', recommendedTools: ['mailer.send'] });
    // Assess
    expect(updated.body.data.trigger).toEqual({ type: 'event', config: { eventType: 'mailapp.email_received', rootCondition: conditions } });
    expect(await getFlow(api, owner, flow.id)).toMatchObject({ prompt: 'Forward it to me', recommendedTools: ['mailer.send'] });
  });

  it('pauses and resumes, disabling and enabling the schedule', async () => {
    // Prepare
    const flow = await givenTimeFlow(api, owner, scriptId);
    // Act
    const paused = await post(owner, 'pauseFlow', { assignmentId: flow.id });
    const scheduleWhilePaused = scheduleOf(flow.id);
    const resumed = await post(owner, 'resumeFlow', { assignmentId: flow.id });
    // Assess
    expect(paused.body.data).toEqual({ id: flow.id, status: 'paused', pausedAt: expect.any(String) });
    expect(scheduleWhilePaused).toMatchObject({ enabled: false });
    expect(resumed.body.data).toEqual({ id: flow.id, status: 'active', resumedAt: expect.any(String) });
    expect(scheduleOf(flow.id)).toMatchObject({ enabled: true });
    expect(await getFlow(api, owner, flow.id)).toMatchObject({ status: 'active', pausedAt: paused.body.data.pausedAt, resumedAt: resumed.body.data.resumedAt });
  });

  it('refuses to pause a paused flow or resume an active one, and changes nothing', async () => {
    // Prepare
    const flow = await givenEventFlow(api, owner);
    const paused = (await post(owner, 'pauseFlow', { assignmentId: flow.id })).body.data;
    // Act
    const pauseAgain = await post(owner, 'pauseFlow', { assignmentId: flow.id });
    await post(owner, 'resumeFlow', { assignmentId: flow.id });
    const resumeAgain = await post(owner, 'resumeFlow', { assignmentId: flow.id });
    // Assess
    expect(pauseAgain.status).toBe(409);
    expect(pauseAgain.body.error).toMatchObject({ code: 'CONFLICT', details: { assignmentId: flow.id, status: 'paused' } });
    expect(resumeAgain.status).toBe(409);
    expect(resumeAgain.body.error.code).toBe('CONFLICT');
    const after = await getFlow(api, owner, flow.id);
    expect(after).toMatchObject({ status: 'active', pausedAt: paused.pausedAt });
  });

  it('deletes a flow with its schedule; afterwards it is NOT_FOUND', async () => {
    // Prepare
    const flow = await givenTimeFlow(api, owner, scriptId);
    await post(owner, 'pauseFlow', { assignmentId: flow.id });
    // Act
    const deleted = await post(owner, 'deleteFlow', { assignmentId: flow.id });
    const read = await post(owner, 'getFlow', { assignmentId: flow.id });
    const again = await post(owner, 'deleteFlow', { assignmentId: flow.id });
    // Assess
    expect(deleted.body.data).toEqual({ id: flow.id, deleted: true, deletedAt: expect.any(String) });
    expect(read.status).toBe(404);
    expect(read.body.error).toMatchObject({ code: 'NOT_FOUND', details: { assignmentId: flow.id } });
    expect(again.status).toBe(404);
    expect(scheduleOf(flow.id)).toBeUndefined();
  });
});

describe('flows: bad input changes nothing', () => {
  const countOf = async (user: TestUser) => (await post(user, 'searchFlows', {})).body.data.count as number;
  const deep = (levels: number) => {
    let node: unknown = { field: 'subject', operator: 'contains', value: 'x' };
    for (let level = 1; level < levels; level++) node = { operator: 'AND', conditions: [node] };
    return node;
  };

  it.each([
    ['createTimeFlow', () => timeFlowInput(scriptId, { title: 't'.repeat(201) }), 'title'],
    ['createTimeFlow', () => timeFlowInput(scriptId, { description: 'd'.repeat(1001) }), 'description'],
    ['createTimeFlow', () => timeFlowInput(scriptId, { schedule: '0 9 * * 1-5 2026' }), 'schedule'],
    ['createTimeFlow', () => timeFlowInput(scriptId, { schedule: '61 * * * *' }), 'schedule'],
    ['createTimeFlow', () => timeFlowInput(scriptId, { scope: 'world' }), 'scope'],
    ['createTimeFlow', () => ({ ...timeFlowInput(scriptId), scriptId: undefined }), 'scriptId'],
    ['createTimeFlow', () => ({ ...timeFlowInput(scriptId), color: 'red' }), 'color'],
    ['createEventFlow', () => eventFlowInput({ eventType: 'mailapp.unknown' }), 'eventType'],
    ['createEventFlow', () => eventFlowInput({ prompt: 'p'.repeat(10_001) }), 'prompt'],
    ['createEventFlow', () => eventFlowInput({ conditions: undefined }), 'conditions'],
    ['createEventFlow', () => eventFlowInput({ conditions: deep(6) }), 'conditions.conditions.0.conditions.0.conditions.0.conditions.0.conditions.0'],
    [
      'createEventFlow',
      () =>
        eventFlowInput({
          conditions: { operator: 'OR', conditions: Array.from({ length: 51 }, () => ({ field: 'subject', operator: 'contains', value: 'x' })) },
        }),
      'conditions.conditions.50',
    ],
    ['createEventFlow', () => eventFlowInput({ conditions: { field: 'f'.repeat(101), operator: 'equals', value: 'x' } }), 'conditions.field'],
    ['createEventFlow', () => eventFlowInput({ conditions: { field: 'subject', operator: 'equals', value: 'v'.repeat(1001) } }), 'conditions.value'],
    ['createEventFlow', () => eventFlowInput({ conditions: { field: 'subject', operator: 'regex', value: '(a)\\1' } }), 'conditions.value'],
    ['createEventFlow', () => eventFlowInput({ executionType: 'direct' }), 'scriptId'],
    ['createEventFlow', () => eventFlowInput({ executionType: 'sometimes' }), 'executionType'],
    ['createEventFlow', () => eventFlowInput({ recommendedTools: 'weather' }), 'recommendedTools'],
  ])('%s refuses a bad %#: VALIDATION_ERROR on the field, no flow created', async (operation, body, field) => {
    // Prepare
    const before = await countOf(owner);
    // Act
    const refused = await post(owner, operation, body());
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect(refused.body.error.details).toHaveProperty('value');
    expect(await countOf(owner)).toBe(before);
  });

  it('reports the cron expression of a malformed schedule', async () => {
    // Act
    const refused = await post(owner, 'createTimeFlow', timeFlowInput(scriptId, { schedule: '*/0 * * * *' }));
    // Assess
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'schedule', value: '*/0 * * * *', cronExpression: '*/0 * * * *' } });
  });

  it.each([
    ['getFlow', {}, 'assignmentId'],
    ['getFlow', { assignmentId: 42 }, 'assignmentId'],
    ['updateFlow', 'EMPTY', 'body'],
    ['updateFlow', { title: '' }, 'title'],
    ['updateFlow', { schedule: 'every day' }, 'schedule'],
    ['updateFlow', { conditions: { field: 'subject', operator: 'equals', value: 'x' } }, 'conditions'],
    ['updateFlow', { prompt: 'Summarise' }, 'prompt'],
    ['pauseFlow', { assignmentId: '' }, 'assignmentId'],
    ['resumeFlow', { assignmentId: null }, 'assignmentId'],
    ['deleteFlow', { assignmentId: ['a'] }, 'assignmentId'],
    ['runFlow', { assignmentId: 7 }, 'assignmentId'],
    ['deleteFlow', 'EXTRA', 'force'],
    ['searchFlows', { limit: 101 }, 'limit'],
    ['searchFlows', { status: 'running' }, 'status'],
    ['searchFlows', { query: 'x', detail: 'summary' }, 'detail'],
    ['searchFlows', { trigger: { kind: 'time' } }, 'trigger.kind'],
  ])('%s refuses %j with VALIDATION_ERROR and leaves the flow as it was', async (operation, body, field) => {
    // Prepare
    const flow = await givenTimeFlow(api, owner, scriptId);
    const request =
      body === 'EMPTY'
        ? { assignmentId: flow.id }
        : body === 'EXTRA'
          ? { assignmentId: flow.id, force: true }
          : {
              ...(['getFlow', 'pauseFlow', 'resumeFlow', 'deleteFlow', 'runFlow', 'searchFlows'].includes(operation) ? {} : { assignmentId: flow.id }),
              ...(body as object),
            };
    // Act
    const refused = await post(owner, operation, request);
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect(await getFlow(api, owner, flow.id)).toEqual({ ...flow, executionResults: [] });
  });
});

describe('flows: naming a flow by flowId', () => {
  it('accepts flowId (the record id) wherever assignmentId is taken', async () => {
    // Prepare
    const flow = await givenTimeFlow(api, owner, scriptId);
    // Act
    const read = await post(owner, 'getFlow', { flowId: flow.id });
    const updated = await post(owner, 'updateFlow', { flowId: flow.id, title: 'Renamed by flowId' });
    const paused = await post(owner, 'pauseFlow', { flowId: flow.id, assignmentId: flow.id });
    // Assess
    expect(read.status).toBe(200);
    expect(read.body.data.id).toBe(flow.id);
    expect(updated.body.data).toMatchObject({ id: flow.id, title: 'Renamed by flowId' });
    expect(paused.body.data).toMatchObject({ id: flow.id, status: 'paused' });
  });

  it('refuses assignmentId and flowId that name different flows, and neither', async () => {
    // Prepare
    const [first, second] = await Promise.all([givenTimeFlow(api, owner, scriptId), givenTimeFlow(api, owner, scriptId)]);
    // Act
    const both = await post(owner, 'pauseFlow', { assignmentId: first.id, flowId: second.id });
    const neither = await post(owner, 'pauseFlow', {});
    // Assess
    expect(both.status).toBe(400);
    expect(both.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'flowId', value: second.id } });
    expect(neither.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'assignmentId' } });
    expect((await getFlow(api, owner, first.id)).status).toBe('active');
    expect((await getFlow(api, owner, second.id)).status).toBe('active');
  });
});

describe('flows: llm flows without a model', () => {
  /** Runs `act` with no language model configured, as on a stock install. */
  async function withoutModel<T>(act: () => Promise<T>): Promise<T> {
    reconfigurePlatform(Object.fromEntries(Object.keys(unreachableModelEnv).map((name) => [name, undefined])));
    return act().finally(() => reconfigurePlatform(unreachableModelEnv));
  }

  it('creates llm event and time flows as the interface says, and warns on create and read that no model is configured', async () => {
    // Prepare
    const user = await api.givenUser();
    const userScript = (await givenScript(api, user)).id;
    // Act
    const [event, time, readEvent, readTime] = await withoutModel(async () => {
      const created = [
        await post(user, 'createEventFlow', eventFlowInput()),
        await post(user, 'createTimeFlow', timeFlowInput(userScript, { executionType: 'llm', prompt: 'Summarise my week' })),
      ];
      return [...created, ...(await Promise.all(created.map((answer) => post(user, 'getFlow', { assignmentId: answer.body.data.id }))))];
    });
    const readWithModel = await post(user, 'getFlow', { assignmentId: event!.body.data.id });
    // Assess
    expect([event!.status, time!.status]).toEqual([200, 200]);
    expect(event!.body.data).toMatchObject({ executionType: 'llm', prompt: 'Summarise the e-mail in two sentences.', scriptId: null, status: 'active' });
    expect(time!.body.data).toMatchObject({
      executionType: 'llm',
      prompt: 'Summarise my week',
      scriptId: userScript,
      trigger: { type: 'time' },
      status: 'active',
    });
    for (const answer of [event!, time!, readEvent!, readTime!]) {
      expect(answer.body.data.warnings).toEqual([expect.stringMatching(/no language model is configured.*LLM_NOT_CONFIGURED.*LLM_BASE_URL and LLM_MODEL/)]);
    }
    expect(readWithModel.body.data.warnings).toEqual([]);
    expect((await post(user, 'searchFlows', {})).body.data.count).toBe(2);
  });

  it('shows the warning on the summary and variant B items of searchFlows', async () => {
    // Prepare
    const user = await api.givenUser();
    const created = (await withoutModel(() => post(user, 'createEventFlow', eventFlowInput()))).body.data;
    // Act
    const [summary, variantB] = await withoutModel(async () => [
      await post(user, 'searchFlows', { detail: 'summary' }),
      await post(user, 'searchFlows', { query: '' }),
    ]);
    // Assess
    const warned = { id: created.id, warnings: [expect.stringContaining('LLM_NOT_CONFIGURED')] };
    expect(summary!.body.data.flows).toEqual([expect.objectContaining(warned)]);
    expect(variantB!.body.data).toEqual([expect.objectContaining(warned)]);
  });

  it('takes a prompt as the interface default for a time flow, and warns about nothing on a direct flow', async () => {
    // Prepare
    const user = await api.givenUser();
    const userScript = (await givenScript(api, user)).id;
    // Act
    const [prompted, direct] = await withoutModel(async () => [
      await post(user, 'createTimeFlow', timeFlowInput(userScript, { prompt: 'Tell me what changed' })),
      await post(user, 'createTimeFlow', timeFlowInput(userScript)),
    ]);
    // Assess
    expect(prompted!.body.data).toMatchObject({ executionType: 'llm', warnings: [expect.stringContaining('LLM_NOT_CONFIGURED')] });
    expect(direct!.body.data).toMatchObject({ executionType: 'direct', prompt: null, warnings: [] });
  });

  it('creates a direct event flow without a prompt', async () => {
    // Prepare
    const { prompt: _left, ...withoutPrompt } = eventFlowInput({ executionType: 'direct', scriptId });
    // Act
    const created = await post(owner, 'createEventFlow', withoutPrompt);
    // Assess
    expect(created.status).toBe(200);
    expect(created.body.data).toMatchObject({ executionType: 'direct', scriptId, prompt: null, warnings: [] });
  });

  it.each([
    ['createEventFlow', () => ({ ...eventFlowInput(), prompt: undefined })],
    ['createTimeFlow', () => timeFlowInput(scriptId, { executionType: 'llm' })],
  ])('%s refuses an llm flow without a prompt and creates nothing', async (operation, body) => {
    // Prepare
    const user = await api.givenUser();
    // Act
    const refused = await post(user, operation, { ...body(), ...(operation === 'createTimeFlow' && { scriptId: (await givenScript(api, user)).id }) });
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'prompt', value: null } });
    expect((await post(user, 'searchFlows', {})).body.data.count).toBe(0);
  });
});

describe('flows: isolation between users', () => {
  it("answers NOT_FOUND for another user's flow on every operation and changes nothing", async () => {
    // Prepare
    const flow = await givenTimeFlow(api, owner, scriptId);
    // Act
    const answers = await Promise.all(
      (['getFlow', 'pauseFlow', 'resumeFlow', 'deleteFlow', 'runFlow'] as const).map((operation) => post(other, operation, { assignmentId: flow.id })),
    );
    const update = await post(other, 'updateFlow', { assignmentId: flow.id, title: 'mine now' });
    const search = await post(other, 'searchFlows', { query: 'Weekday' });
    // Assess
    for (const answer of [...answers, update]) {
      expect(answer.status).toBe(404);
      expect(answer.body.error).toEqual({ code: 'NOT_FOUND', message: `flow ${flow.id} not found`, details: { assignmentId: flow.id } });
    }
    expect(search.body.data).toEqual([]);
    expect(await getFlow(api, owner, flow.id)).toEqual({ ...flow, executionResults: [] });
  });

  it("refuses a flow on another user's private script as NOT_FOUND", async () => {
    // Act
    const refused = await post(other, 'createTimeFlow', timeFlowInput(scriptId));
    // Assess
    expect(refused.status).toBe(404);
    expect(refused.body.error).toMatchObject({ code: 'NOT_FOUND', details: { scriptId } });
    expect((await post(other, 'searchFlows', {})).body.data.count).toBe(0);
  });
});
