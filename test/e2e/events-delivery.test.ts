import { readFileSync } from 'node:fs';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inProcessBus } from '../../functions/adapters/local/event-bus.js';
import { busConsumers } from '../../functions/consumers.js';
import { scheduleFiringType } from '../../functions/events/internal-events.js';
import { busEnvelope, matchesRule, rulePattern } from '../../functions/platform/bus-envelope.js';
import { dynamo, tableName } from '../../functions/platform/dynamo.js';
import { crashingCode, eventScripts } from '../support/event-scripts.js';
import { sampleInput } from '../support/event-samples.js';
import { givenEventFlow, waitForExecutions } from '../support/flows.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

let api: TestApi;
let scripts: ReturnType<typeof eventScripts>;

beforeAll(async () => {
  api = await startTestPlatform();
  scripts = eventScripts(api);
});
afterAll(() => api.stop());

const subscribe = async (user: TestUser, scriptId: string, body: Record<string, unknown>) => {
  const response = await api.as(user.apiKey).post(`/api/sdk/v1/scripts/${scriptId}/subscriptions`, body);
  if (response.status !== 201) throw new Error(`could not subscribe: ${response.text}`);
  return response.body.data.subscriptionId as string;
};
const publish = async (user: TestUser, event: Record<string, unknown>) => {
  const response = await api.as(user.apiKey).post('/api/sdk/v1/events', event);
  if (response.status !== 202) throw new Error(`could not publish: ${response.text}`);
  return response.body.data.eventId as string;
};

describe('events: delivery to subscribed scripts', () => {
  it('runs the subscribed script with the enriched event object within seconds of POST /events', async () => {
    // Prepare
    const user = await api.givenUser();
    const scriptId = await scripts.givenScript(user);
    const subscriptionId = await subscribe(user, scriptId, {
      eventType: 'chatapp.message',
      conditions: [{ field: 'enrichment.tickers.0.symbol', operator: 'equals', value: 'AAPL' }],
    });
    // Act
    const eventId = await publish(user, sampleInput('chatapp.message'));
    const [run] = await scripts.waitForRuns(user, scriptId, 1);
    // Assess
    expect(run).toMatchObject({ status: 'success', trigger: 'event' });
    expect(run!.result!.trigger).toEqual({ type: 'event', source: subscriptionId, event: 'chatapp.message' });
    expect(run!.result!.data).toMatchObject({
      id: eventId,
      userId: user.userId,
      type: 'chatapp.message',
      messageText: expect.stringContaining('$AAPL'),
      senderName: 'Dana Whitfield',
      enrichment: {
        tickers: expect.arrayContaining([{ symbol: 'AAPL', confidence: 0.95 }]),
        sentiment: { label: 'positive' },
        stream: { processingVersion: '1.0.0' },
      },
    });
  });

  it('fires only matching, enabled subscriptions of deployed scripts of the event\u2019s own user', async () => {
    // Prepare
    const [user, other] = await Promise.all([api.givenUser(), api.givenUser()]);
    const [control, unmatched, disabled, draft, othersScript] = await Promise.all([
      scripts.givenScript(user),
      scripts.givenScript(user),
      scripts.givenScript(user),
      scripts.givenScript(user, { deploy: false }),
      scripts.givenScript(other),
    ]);
    await subscribe(user, control, { eventType: 'mailapp.email_received' });
    await subscribe(user, unmatched, {
      eventType: 'mailapp.email_received',
      conditions: [{ field: 'mailapp.hasAttachments', operator: 'equals', value: false }],
    });
    await subscribe(user, disabled, { eventType: 'mailapp.email_received', enabled: false });
    await subscribe(user, draft, { eventType: 'mailapp.email_received' });
    await subscribe(other, othersScript, { eventType: 'mailapp.email_received' });
    // Act
    await publish(user, sampleInput('mailapp.email_received'));
    await scripts.waitForRuns(user, control, 1);
    // A second event for the control script: by the time it has run, the first event's dispatch is long finished.
    await publish(user, sampleInput('mailapp.email_received'));
    await scripts.waitForRuns(user, control, 2);
    // Assess
    expect(await scripts.runsOf(user, unmatched)).toEqual([]);
    expect(await scripts.runsOf(user, disabled)).toEqual([]);
    expect(await scripts.runsOf(user, draft)).toEqual([]);
    expect(await scripts.runsOf(other, othersScript)).toEqual([]);
  });

  it('keeps delivering to the next subscriber when a script crashes', async () => {
    // Prepare
    const user = await api.givenUser();
    const crashing = await scripts.givenScript(user, { code: crashingCode });
    const healthy = await scripts.givenScript(user);
    await subscribe(user, crashing, { eventType: 'call.ended' });
    await subscribe(user, healthy, { eventType: 'call.ended' });
    // Act
    await publish(user, sampleInput('call.ended'));
    await publish(user, sampleInput('call.ended'));
    const [crashRuns, healthyRuns] = await Promise.all([scripts.waitForRuns(user, crashing, 2), scripts.waitForRuns(user, healthy, 2)]);
    // Assess
    expect(crashRuns.map((run) => run.status)).toEqual(['error', 'error']);
    expect(healthyRuns.map((run) => run.status)).toEqual(['success', 'success']);
    expect(new Set(healthyRuns.map((run) => run.result!.data.id)).size).toBe(2);
  });

  it('runs a schedule\u2019s script with trigger schedule and its data when the schedule fires', async () => {
    // Prepare
    const user = await api.givenUser();
    const scriptId = await scripts.givenScript(user);
    const created = await api
      .as(user.apiKey)
      .post('/api/sdk/v1/scripts/createSchedule', { scriptId, name: 'nightly', cronExpression: '0  3 * * *', data: { report: 'nightly' } });
    const { scheduleId } = created.body.data;
    const firing = { type: scheduleFiringType, source: 'scheduler', userId: user.userId, scheduleId, scheduledTime: '2026-03-03T03:00:00.000Z' };
    // Act
    await inProcessBus.publish(firing);
    await inProcessBus.publish(firing);
    const [run] = await scripts.waitForRuns(user, scriptId, 1);
    // Assess
    expect(created.status).toBe(200);
    expect(created.body.data).toEqual({ scheduleId: expect.stringMatching(/^sch_/), scriptId, name: 'nightly', cronExpression: '0 3 * * *', enabled: true });
    expect(run).toMatchObject({
      status: 'success',
      trigger: 'schedule',
      result: { trigger: { type: 'schedule', source: scheduleId }, data: { report: 'nightly' } },
    });
    expect(await scripts.runsOf(user, scriptId)).toHaveLength(1);
  });
});

const ledgerEntry = async (deliveryId: string) =>
  (await dynamo().send(new GetCommand({ TableName: tableName('eventDeliveries'), Key: { deliveryId }, ConsistentRead: true }))).Item;

describe('events: one trigger pipeline for every kind of target', () => {
  it('delivers one user event through one consumer to both the subscribed script and the event flow, with a ledger entry for each', async () => {
    // Prepare
    const user = await api.givenUser();
    const [subscribedScript, flowScript] = await Promise.all([scripts.givenScript(user), scripts.givenScript(user)]);
    const subscriptionId = await subscribe(user, subscribedScript, { eventType: 'mailapp.email_received' });
    const flow = await givenEventFlow(api, user, {
      executionType: 'direct',
      scriptId: flowScript,
      conditions: { field: 'subject', operator: 'contains', value: 'urgent' },
    });
    // Act
    const eventId = await publish(user, sampleInput('mailapp.email_received'));
    const [scriptRun] = await scripts.waitForRuns(user, subscribedScript, 1);
    const flowRun = await waitForExecutions(api, user, flow.id, 1);
    // Assess
    const takers = busConsumers.filter((consumer) =>
      matchesRule(rulePattern(consumer), busEnvelope({ id: eventId, type: 'mailapp.email_received', source: 'api', userId: user.userId })),
    );
    expect(takers.map((consumer) => consumer.name)).toEqual(['dispatchEvent']);
    expect(scriptRun!.result!.trigger).toEqual({ type: 'event', source: subscriptionId, event: 'mailapp.email_received' });
    expect(flowRun.executionResults[0].result.trigger).toEqual({ type: 'flow', source: flow.id, event: 'mailapp.email_received' });
    expect(await ledgerEntry(`${eventId}#${subscriptionId}`)).toMatchObject({
      status: 'done',
      outcome: { result: 'executed', executionId: scriptRun!.executionId, status: 'success' },
    });
    expect(await ledgerEntry(`${eventId}#${flow.id}`)).toMatchObject({
      status: 'done',
      outcome: { result: 'executed', executionId: flowRun.executionResults[0].executionId },
    });
  });

  it('runs the event flow when the subscribed script crashes, and records each outcome on its own', async () => {
    // Prepare
    const user = await api.givenUser();
    const [crashing, flowScript] = await Promise.all([scripts.givenScript(user, { code: crashingCode }), scripts.givenScript(user)]);
    const subscriptionId = await subscribe(user, crashing, { eventType: 'mailapp.email_received' });
    const flow = await givenEventFlow(api, user, {
      executionType: 'direct',
      scriptId: flowScript,
      conditions: { field: 'subject', operator: 'contains', value: 'urgent' },
    });
    // Act
    const eventId = await publish(user, sampleInput('mailapp.email_received'));
    const [crashed] = await scripts.waitForRuns(user, crashing, 1);
    const flowRun = await waitForExecutions(api, user, flow.id, 1);
    // Assess
    expect(crashed).toMatchObject({ status: 'error' });
    expect(flowRun.executionResults[0]).toMatchObject({ status: 'success' });
    expect(await ledgerEntry(`${eventId}#${subscriptionId}`)).toMatchObject({ status: 'done', outcome: { result: 'executed', status: 'error' } });
    expect(await ledgerEntry(`${eventId}#${flow.id}`)).toMatchObject({ status: 'done', outcome: { result: 'executed' } });
  });
});

describe("events: the platform's owner events", () => {
  it('refuses a user\u2019s own platform.execution.failed: the subscription and the event flow on it run only for the platform\u2019s', async () => {
    // Prepare
    const user = await api.givenUser();
    const [alert, flowScript, crashing] = await Promise.all([
      scripts.givenScript(user),
      scripts.givenScript(user),
      scripts.givenScript(user, { code: crashingCode }),
    ]);
    await subscribe(user, alert, { eventType: 'platform.execution.failed' });
    const flow = await givenEventFlow(api, user, {
      eventType: 'platform.execution.failed',
      executionType: 'direct',
      scriptId: flowScript,
      conditions: { operator: 'AND', conditions: [] },
    });
    const forgedEvent = JSON.parse(readFileSync(new URL('../../events/platform/platform.execution.failed.json', import.meta.url), 'utf8'));
    // Act
    const forged = await api.as(user.apiKey).post('/api/sdk/v1/events', forgedEvent);
    // A real failure's event: once both have run for it, a forged event published before it would have reached them too.
    const failed = await api.as(user.apiKey).post('/api/sdk/v1/scripts/executeScript', { scriptId: crashing });
    await scripts.waitForRuns(user, alert, 1);
    const flowRuns = await waitForExecutions(api, user, flow.id, 1);
    // Assess
    expect(forged.status).toBe(400);
    expect(forged.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'type', value: 'platform.execution.failed' } });
    const { executionId } = failed.body.data;
    expect((await scripts.runsOf(user, alert)).map((run) => run.result?.data?.data?.executionId)).toEqual([executionId]);
    expect(flowRuns.executionResults.map((run: { result: { data: { data: { executionId: string } } } }) => run.result.data.data.executionId)).toEqual([
      executionId,
    ]);
  });
});
