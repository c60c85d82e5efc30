// Cancelling a flow's run against DynamoDB Local: the cancellation stands against the invocation that was running
// when it came (a run resumed after its approval), which ends later and would otherwise write its own result.
import { beforeAll, describe, expect, it } from 'vitest';
import { storedTrigger } from '../../functions/flows/execution-store.js';
import { createFlowRunOperations } from '../../functions/flows/run-operations.js';
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
