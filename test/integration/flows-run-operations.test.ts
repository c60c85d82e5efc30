// Operating a flow's run against DynamoDB Local: the cancellation stands against the invocation that was running
// when it came (a run resumed after its approval), which ends later and would otherwise write its own result; and a
// result kept before execution lookups existed is found by id once, which indexes its owner's results for good.
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { storedTrigger } from '../../functions/flows/execution-store.js';
import { createFlowRunOperations } from '../../functions/flows/run-operations.js';
import { dynamo, tableName } from '../../functions/platform/dynamo.js';
import { newId } from '../../functions/platform/ids.js';
import { commandsDuring } from '../support/dynamo-commands.js';
import { flowWorld, useDynamoLocal } from '../support/flow-world.js';

beforeAll(useDynamoLocal);

describe('flows: cancel of a run', () => {
  it('keeps the execution failed with CANCELLED when the invocation running at the cancel ends afterwards, and schedules no retry', async () => {
    // Prepare
    const w = flowWorld();
    const flow = await w.eventFlow('llm');
    const admitted = await w.runs.admit(
      { flowId: flow.id, userId: w.caller.userId },
      { type: 'event', eventType: 'chatapp.message', data: { content: { text: 'deploy' } }, attempt: 0 },
    );
    const waiting = {
      executionId: admitted.executionId,
      timestamp: admitted.startedAt,
      status: 'waiting' as const,
      duration: 5,
      cost: 0,
      logs: [],
      result: null,
    };
    await w.executions.putResult(admitted.flow, admitted.flow.executionCount, waiting, storedTrigger(admitted.trigger));
    await w.runs.release(admitted);
    // The durable engine's side of the cancel is the scripts area's (test/e2e/flow-run-operations.test.ts): here it accepts.
    const operations = createFlowRunOperations({
      flows: w.flows,
      executions: w.executions,
      records: w.records,
      durable: { cancel: async () => true, reuseSteps: async () => undefined },
      publisher: { publish: async () => ({ eventId: 'evt' }) },
      clock: w.clock,
    });
    await operations.cancel(w.caller.userId, admitted.executionId);
    // Act: the resumed invocation ends (no model is configured in this world: it fails)
    await w.runs.finish({ ...admitted, invocation: 2 });
    // Assess
    const [result] = (await w.service.get(w.caller, flow.id)).executionResults;
    expect(result).toMatchObject({ executionId: admitted.executionId, status: 'failed', error: { code: 'CANCELLED' } });
    expect(w.pendingRetries()).toEqual([]);
  });
});

describe('flows: finding a run by id', () => {
  it("finds a result kept before lookups existed on its owner's first miss, indexes it, and answers later misses in a few reads", async () => {
    // Prepare: a result as the code before lookups wrote it, of an owner not marked indexed.
    const w = flowWorld();
    const flow = await w.eventFlow('llm');
    const executionId = newId('exe');
    const timestamp = w.clock.nowIso();
    const result = { executionId, timestamp, status: 'success' as const, duration: 5, cost: 0, logs: [], result: null };
    const trigger = storedTrigger({ type: 'event', eventType: 'chatapp.message', data: { n: 1 }, attempt: 0 });
    await w.executions.putResult({ flowId: flow.id, userId: w.caller.userId }, 1, result, trigger);
    await dynamo().send(new DeleteCommand({ TableName: tableName('flowExecutions'), Key: { flowId: `execution#${executionId}`, entry: 'lookup' } }));
    await dynamo().send(
      new UpdateCommand({ TableName: tableName('flowOwners'), Key: { userId: w.caller.userId }, UpdateExpression: 'REMOVE executionsIndexed' }),
    );
    const published: unknown[] = [];
    const operations = createFlowRunOperations({
      flows: w.flows,
      executions: w.executions,
      records: w.records,
      durable: { cancel: async () => true, reuseSteps: async () => undefined },
      publisher: { publish: async (event) => (published.push(event), { eventId: 'evt' }) },
      clock: w.clock,
    });
    // Act
    const rerun = await operations.rerun(w.caller.userId, executionId);
    const unknown = await commandsDuring(() => operations.rerun(w.caller.userId, newId('exe')).catch((error: unknown) => error));
    // Assess
    expect(rerun).toMatch(/^exe_/);
    expect(published).toHaveLength(1);
    expect((await w.executions.findKept(executionId, w.clock.now()))?.flowId).toBe(flow.id);
    expect((await w.flows.getOwner(w.caller.userId))?.executionsIndexed).toBe(true);
    expect(unknown.value).toMatchObject({ code: 'NOT_FOUND' });
    expect(unknown.commands.length, JSON.stringify(unknown.commands)).toBeLessThanOrEqual(2);
  });
});
