// Limits and idempotency of flow executions against DynamoDB Local: redelivered firings and events, the 300 s
// deadline (TIMEOUT), a busy script, 10 concurrent executions per flow, and the per-user flow limits.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { dynamo, tableName } from '../../functions/platform/dynamo.js';
import { TooManyRequestsError } from '../../functions/platform/errors.js';
import { flowWorld, refusalOf, scriptResult, useDynamoLocal } from '../support/flow-world.js';

beforeAll(useDynamoLocal);

describe('flows: redelivery', () => {
  it('runs a schedule firing the bus delivers twice only once', async () => {
    // Prepare
    const w = flowWorld();
    const flow = await w.service.createTimeFlow(w.caller, {
      title: 'hourly',
      description: 'runs the report',
      schedule: '0 * * * *',
      scriptId: 'scr_report',
      scope: 'user',
    });
    const firing = { type: 'platform.flow_schedule', source: 'scheduler', userId: w.caller.userId, flowId: flow.id, scheduledTime: '2099-03-02T10:00:00.000Z' };
    // Act
    const first = await w.handle({ ...firing, id: 'evt_first' });
    const again = await w.handle({ ...firing, id: 'evt_again' });
    // Assess
    expect(first).toMatchObject({ executed: 1 });
    expect(again).toMatchObject({ executed: 0, skipped: 1 });
    expect(w.scriptCalls).toHaveLength(1);
  });

  it('runs an event the bus delivers twice only once', async () => {
    // Prepare
    const w = flowWorld();
    const flow = await w.eventFlow('direct');
    const event = { id: 'evt_twice', type: 'chatapp.message', source: 'chatapp', userId: w.caller.userId, content: { text: 'deploy now' } };
    // Act
    await w.handle(event);
    const again = await w.handle(event);
    // Assess
    expect(again).toMatchObject({ executed: 0, duplicates: 1 });
    expect((await w.service.get(w.caller, flow.id)).executionCount).toBe(1);
  });
});

describe('flows: execution limits', () => {
  it('records TIMEOUT as a failed execution when the 300 s deadline passes', async () => {
    // Prepare
    const w = flowWorld({ script: () => new Promise<never>(() => undefined) });
    const flow = await w.eventFlow('direct');
    // Act
    const handled = w.event('deploy');
    await vi.waitFor(() => expect(w.deadlines).toHaveLength(1));
    w.deadlines[0]!();
    await handled;
    // Assess
    const [result] = (await w.service.get(w.caller, flow.id)).executionResults;
    expect(result).toMatchObject({
      executionId: expect.stringMatching(/^exe_/),
      status: 'failed',
      error: { code: 'TIMEOUT', message: 'the flow execution exceeded 300 seconds' },
    });
  });

  it('waits for a script busy with its 10 runs elsewhere instead of failing the execution', async () => {
    // Prepare
    let refusals = 2;
    const w = flowWorld({
      script: async () => {
        if (refusals-- > 0) throw new TooManyRequestsError('CONCURRENCY_LIMIT', 'script scr_handler already runs 10 executions', 1);
        return scriptResult();
      },
    });
    const flow = await w.eventFlow('direct');
    // Act
    await w.event('deploy');
    // Assess
    const [result] = (await w.service.get(w.caller, flow.id)).executionResults;
    expect(result!.status).toBe('success');
    expect(result!.logs.filter((line) => line.includes('is busy'))).toHaveLength(2);
    expect(w.pendingRetries()).toEqual([]);
  });

  it('runs at most 10 executions of a flow at once', async () => {
    // Prepare
    const w = flowWorld({ script: () => new Promise<never>(() => undefined) });
    const flow = await w.eventFlow('direct');
    const item = (await w.flows.get(flow.id))!;
    const manual = { type: 'manual' as const, data: {}, attempt: 0 };
    const running = Array.from({ length: 10 }, () => w.runs.run(item, manual));
    await vi.waitFor(() => expect(w.deadlines).toHaveLength(10));
    // Act
    const eleventh = await w.runs.run(item, manual).catch((error: { code: string; status: number }) => error);
    for (const expire of w.deadlines) expire();
    await Promise.all(running);
    // Assess
    expect(eleventh).toMatchObject({ code: 'CONCURRENCY_LIMIT', status: 429 });
    expect((await w.flows.get(flow.id))!.runs).toEqual({});
    expect((await w.service.get(w.caller, flow.id)).executionCount).toBe(10);
  });
});

describe('flows: per-user limits', () => {
  it('creates at most 100 flows per UTC day, concurrently too, and more the next day', async () => {
    // Prepare
    const w = flowWorld();
    await Promise.all(Array.from({ length: 100 }, () => w.eventFlow('llm')));
    // Act
    const refused = await refusalOf(w.eventFlow('llm'));
    w.advance(24 * 60 * 60 * 1000);
    const nextDay = await refusalOf(w.eventFlow('llm'));
    // Assess
    expect(refused).toEqual({ code: 'DAILY_LIMIT_EXCEEDED', status: 429 });
    expect(nextDay).toBeUndefined();
  });

  it('keeps at most 1,000 flows per user; deleting one makes room', async () => {
    // Prepare
    const w = flowWorld();
    const kept = await w.eventFlow('llm');
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName('flowOwners'),
        Key: { userId: w.caller.userId },
        UpdateExpression: 'SET flowCount = :full',
        ExpressionAttributeValues: { ':full': 1000 },
      }),
    );
    // Act
    const refused = await refusalOf(w.eventFlow('llm'));
    await w.service.remove(w.caller, kept.id);
    const afterDelete = await refusalOf(w.eventFlow('llm'));
    // Assess
    expect(refused).toEqual({ code: 'CONFLICT', status: 409 });
    expect(afterDelete).toBeUndefined();
  });
});

describe('flows: which event flows an event finds', () => {
  it('finds an event flow created, paused and resumed after events nobody listened to', async () => {
    // Prepare
    const w = flowWorld();
    const listened = () => w.flows.activeForEvent(w.caller.userId, 'chatapp.message').then((found) => found.map((flow) => flow.flowId));
    const beforeAny = await listened();
    // Act
    const flow = await w.eventFlow('direct');
    const afterCreate = await listened();
    await w.service.pause(w.caller, flow.id);
    const whilePaused = await listened();
    await w.service.resume(w.caller, flow.id);
    const afterResume = await listened();
    // Assess
    expect(beforeAny).toEqual([]);
    expect(afterCreate).toEqual([flow.id]);
    expect(whilePaused).toEqual([]);
    expect(afterResume).toEqual([flow.id]);
  });
});
