// Flow executions against DynamoDB Local with a clock the tests move: the retry ladder on the local scheduler's
// one-time firings, auto-pause and the owner's notice, and time flows on the local scheduler.
import { beforeAll, describe, expect, it } from 'vitest';
import type { LanguageModel } from '../../functions/flows/ports.js';
import { flowWorld, scriptFailure, scriptResult, useDynamoLocal } from '../support/flow-world.js';

/** A configured model whose endpoint is down: a failure a later retry may mend. */
const modelDown: LanguageModel = {
  modelId: 'down',
  pricing: { inputPerMTok: 0, outputPerMTok: 0 },
  complete: () => Promise.reject(new Error('connect ECONNREFUSED')),
};

beforeAll(useDynamoLocal);

describe('flows: retries and auto-pause', () => {
  it('retries a failing llm flow after 1, 5, 15 and 60 minutes, then pauses it and notifies the owner', async () => {
    // Prepare
    const w = flowWorld({ model: modelDown });
    const flow = await w.eventFlow('llm');
    const started = w.clock.now();
    // Act
    await w.event('please deploy now');
    const dueTimes: number[] = [];
    const earlyTick = await (async () => {
      w.advance(59_000);
      return w.scheduler.fireOneShots();
    })();
    for (let retry = 0; retry < 4; retry++) {
      dueTimes.push(Date.parse(w.pendingRetries()[0]!.at));
      expect(await w.fireNextRetry()).toBe(1);
    }
    // Assess
    expect(earlyTick).toBe(0);
    const offsets = dueTimes.map((due, index) => due - (index === 0 ? started : dueTimes[index - 1]!));
    expect(offsets).toEqual([60_000, 5 * 60_000, 15 * 60_000, 60 * 60_000]);
    const after = await w.service.get(w.caller, flow.id);
    expect(after.status).toBe('paused');
    expect(after.executionCount).toBe(5);
    expect(after.executionResults.map((result) => [result.status, result.error?.code])).toEqual(Array(5).fill(['failed', 'LLM_ERROR']));
    expect(after.executionResults[0]!.logs[0]).toMatch(/^retry 4 of 4 after the failure of execution exe_/);
    expect(w.pendingRetries()).toEqual([]);
    expect(w.paused()).toEqual([
      expect.objectContaining({ userId: w.caller.userId, source: 'flows', data: expect.objectContaining({ flowId: flow.id, reason: 'retries_exhausted' }) }),
    ]);
  });

  it('fails a run at once without retries when no language model is configured, and keeps the flow active', async () => {
    // Prepare
    const w = flowWorld();
    const flow = await w.eventFlow('llm');
    // Act
    await w.event('please deploy now');
    // Assess
    const after = await w.service.get(w.caller, flow.id);
    expect(after.executionResults.map((result) => [result.status, result.error?.code])).toEqual([['failed', 'LLM_NOT_CONFIGURED']]);
    expect(w.pendingRetries()).toEqual([]);
    expect(after.status).toBe('active');
    expect(w.paused()).toEqual([]);
  });

  it('pauses a direct flow after 3 consecutive failures of its script, without the later retries', async () => {
    // Prepare
    const w = flowWorld({ script: async () => scriptFailure });
    const flow = await w.eventFlow('direct');
    // Act
    await w.event('deploy the api');
    await w.fireNextRetry();
    await w.fireNextRetry();
    // Assess
    const after = await w.service.get(w.caller, flow.id);
    expect(after.status).toBe('paused');
    expect(after.executionResults).toHaveLength(3);
    expect(after.executionResults[0]!.error).toEqual({ code: 'SCRIPT_FAILURE', message: 'upstream down' });
    expect(w.pendingRetries()).toEqual([]);
    expect(w.paused()[0]!.data).toMatchObject({ flowId: flow.id, reason: 'script_failures' });
    expect(w.scriptCalls.map((call) => (call.data as { content: { text: string } }).content.text)).toEqual(Array(3).fill('deploy the api'));
  });

  it('counts a noOp result as a success: the retries stop and the failure count starts over', async () => {
    // Prepare
    const outcomes = [
      scriptFailure,
      scriptFailure,
      scriptResult({ noOp: true, output: { success: false, noOp: true, reason: 'nothing to deploy' } }),
      scriptFailure,
      scriptFailure,
    ];
    const w = flowWorld({ script: async () => outcomes.shift()! });
    const flow = await w.eventFlow('direct');
    // Act
    await w.event('deploy 1');
    await w.fireNextRetry();
    await w.fireNextRetry();
    const afterNoOp = w.pendingRetries();
    await w.event('deploy 2');
    await w.fireNextRetry();
    // Assess
    expect(afterNoOp).toEqual([]);
    const after = await w.service.get(w.caller, flow.id);
    expect(after.status).toBe('active');
    expect(after.executionResults.map((result) => result.status)).toEqual(['failed', 'failed', 'success', 'failed', 'failed']);
    expect(w.pendingRetries()).toHaveLength(1);
    expect(w.paused()).toEqual([]);
  });

  it('drops a pending retry when the flow was paused meanwhile', async () => {
    // Prepare
    const w = flowWorld({ script: async () => scriptFailure });
    const flow = await w.eventFlow('direct');
    await w.event('deploy');
    await w.service.pause(w.caller, flow.id);
    // Act
    const fired = await w.fireNextRetry();
    // Assess
    expect(fired).toBe(1);
    expect(w.scriptCalls).toHaveLength(1);
    expect((await w.service.get(w.caller, flow.id)).executionCount).toBe(1);
  });
});

describe('flows: time flows on the scheduler', () => {
  it('runs at the cron minutes, not while paused, and follows a changed schedule', async () => {
    // Prepare
    const w = flowWorld();
    w.at('2099-03-02T08:59:00.000Z');
    await w.scheduler.tick();
    const flow = await w.service.createTimeFlow(w.caller, {
      title: 'every 5 minutes',
      description: 'runs the report',
      schedule: '*/5 * * * *',
      scriptId: 'scr_report',
      scope: 'user',
    });
    // Act
    w.at('2099-03-02T09:00:00.000Z');
    await w.scheduler.tick();
    await w.service.pause(w.caller, flow.id);
    w.at('2099-03-02T09:05:00.000Z');
    await w.scheduler.tick();
    await w.service.resume(w.caller, flow.id);
    w.at('2099-03-02T09:10:00.000Z');
    await w.scheduler.tick();
    await w.service.update(w.caller, { assignmentId: flow.id, schedule: '0 * * * *' });
    w.at('2099-03-02T09:15:00.000Z');
    await w.scheduler.tick();
    w.at('2099-03-02T10:00:00.000Z');
    await w.scheduler.tick();
    // Assess
    expect(w.scriptCalls.map((call) => call.data)).toEqual([
      { flowId: flow.id, scheduledTime: '2099-03-02T09:00:00.000Z' },
      { flowId: flow.id, scheduledTime: '2099-03-02T09:10:00.000Z' },
      { flowId: flow.id, scheduledTime: '2099-03-02T10:00:00.000Z' },
    ]);
    const after = await w.service.get(w.caller, flow.id);
    expect(after).toMatchObject({
      executionCount: 3,
      lastExecutedAt: '2099-03-02T10:00:00.000Z',
      trigger: { type: 'time', config: { cronExpression: '0 * * * *' } },
    });
  });
});
