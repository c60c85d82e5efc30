// The stores of run records against DynamoDB Local: a flow's executions listed by owner across flows (newest first,
// within a date range, retries and other users' left out, settled ones kept), and a script's runs listed without
// reading any durable run's journal, which only the page shown reads. Queries are counted on the real client.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createExecutionStore as createFlowExecutionStore } from '../../functions/flows/execution-store.js';
import type { ExecutionResult } from '../../functions/flows/model.js';
import { newId } from '../../functions/platform/ids.js';
import { createJournal } from '../../functions/durable/journal.js';
import type { Execution } from '../../functions/scripts/model.js';
import { createExecutionStore as createScriptExecutionStore } from '../../functions/scripts/runs/execution-store.js';
import { createFileBlobStore } from '../../functions/adapters/local/file-blob-store.js';

/** Results this small stay in the journal: no blob is written. */
const journalResults = () => createFileBlobStore('script-packages');
import { commandsDuring } from '../support/dynamo-commands.js';

beforeAll(() => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
});

/** The tables each Query and GetItem sent through the platform's client reads, in order, while `work` runs. */
async function tablesRead<T>(work: () => Promise<T>): Promise<{ value: T; tables: string[] }> {
  const { value, commands } = await commandsDuring(work);
  return { value, tables: commands.filter(({ command }) => command === 'QueryCommand' || command === 'GetCommand').map(({ table }) => table) };
}

const result = (executionId: string, timestamp: string, overrides: Partial<ExecutionResult> = {}): ExecutionResult => ({
  executionId,
  timestamp,
  status: 'success',
  duration: 12,
  cost: 0.001,
  logs: ['ran'],
  result: { big: 'x'.repeat(1000) },
  ...overrides,
});

// Far in the future: DynamoDB Local sweeps items whose TTL (90 days after their start) has passed.
const nowMs = Date.parse('2099-06-30T00:00:00.000Z');

describe('flow executions by owner', () => {
  it("lists an owner's executions across flows newest first, within the range, without retries or others' executions", async () => {
    // Prepare
    const store = createFlowExecutionStore();
    const [userId, otherId] = [newId('usr'), newId('usr')];
    const [first, second, theirs] = [
      { flowId: newId('flw'), userId },
      { flowId: newId('flw'), userId },
      { flowId: newId('flw'), userId: otherId },
    ];
    await store.putResult(first, 1, result('exe_a', '2099-06-01T10:00:00.000Z'));
    await store.putResult(second, 1, result('exe_b', '2099-06-02T10:00:00.000Z', { status: 'failed', error: { code: 'SCRIPT_ERROR', message: 'boom' } }));
    await store.putResult(first, 2, result('exe_c', '2099-06-03T10:00:00.000Z'));
    await store.putResult(theirs, 1, result('exe_d', '2099-06-02T12:00:00.000Z'));
    await store.putRetry({
      flowId: first.flowId,
      originId: 'exe_c',
      userId,
      attempt: 1,
      trigger: { type: 'time' },
      data: null,
      dueAt: '2099-06-03T10:01:00.000Z',
    });
    // Act
    const all = await store.listByUser(userId, {}, nowMs);
    const june2 = { startDate: '2099-06-02T00:00:00.000Z', endDate: '2099-06-02T23:59:59.999Z' };
    const ranged = await store.listByUser(userId, june2, nowMs);
    // Assess
    expect(all).toEqual([
      { flowId: first.flowId, executionId: 'exe_c', timestamp: '2099-06-03T10:00:00.000Z', status: 'success', duration: 12, cost: 0.001 },
      {
        flowId: second.flowId,
        executionId: 'exe_b',
        timestamp: '2099-06-02T10:00:00.000Z',
        status: 'failed',
        duration: 12,
        cost: 0.001,
        error: { code: 'SCRIPT_ERROR', message: 'boom' },
      },
      { flowId: first.flowId, executionId: 'exe_a', timestamp: '2099-06-01T10:00:00.000Z', status: 'success', duration: 12, cost: 0.001 },
    ]);
    expect(ranged.map((item) => item.executionId)).toEqual(['exe_b']);
  });

  it('leaves out executions past their retention', async () => {
    // Prepare
    const store = createFlowExecutionStore();
    const flow = { flowId: newId('flw'), userId: newId('usr') };
    await store.putResult(flow, 1, result('exe_old', '2099-03-01T10:00:00.000Z'));
    await store.putResult(flow, 2, result('exe_new', '2099-06-01T10:00:00.000Z'));
    // Act
    const listed = await store.listByUser(flow.userId, {}, nowMs);
    // Assess
    expect(listed.map((item) => item.executionId)).toEqual(['exe_new']);
  });

  it('keeps a settled execution under its owner, with its end', async () => {
    // Prepare
    const store = createFlowExecutionStore();
    const flow = { flowId: newId('flw'), userId: newId('usr') };
    const waiting = result('exe_wait', '2099-06-01T10:00:00.000Z', { status: 'waiting', scriptExecutionId: 'exe_script', result: null });
    await store.putResult(flow, 1, waiting, { type: 'manual', attempt: 0 });
    const kept = (await store.findWaiting(flow.flowId, 'exe_script'))!;
    // Act
    const settled = await store.settle(flow.flowId, kept, { ...waiting, status: 'failed', duration: 40, error: { code: 'SCRIPT_ERROR', message: 'late' } });
    const again = await store.settle(flow.flowId, kept, { ...waiting, status: 'success' });
    // Assess
    expect([settled, again]).toEqual([true, false]);
    expect(await store.listByUser(flow.userId, {}, nowMs)).toEqual([
      expect.objectContaining({ executionId: 'exe_wait', status: 'failed', duration: 40, error: { code: 'SCRIPT_ERROR', message: 'late' } }),
    ]);
    expect((await store.listKept(flow.flowId, nowMs))[0]).toMatchObject({ trigger: { type: 'manual', attempt: 0 }, result: { status: 'failed' } });
  });
});

const run = (userId: string, scriptId: string, createdAt: string, durable: boolean): Execution => ({
  executionId: newId('exe'),
  scriptId,
  userId,
  scriptUser: `${scriptId}#${userId}`,
  version: 1,
  trigger: { type: 'manual' },
  status: 'success',
  output: { big: 'x'.repeat(1000) },
  error: null,
  duration: 5,
  memoryUsed: 64,
  cost: 0.0001,
  resourceCalls: 0,
  createdAt,
  finishedAt: createdAt,
  expiresAt: Math.floor(nowMs / 1000),
  inputJson: '{}',
  ...(durable && { durable: true as const }),
});

describe('script runs in lists', () => {
  it("lists a user's runs, durable ones included, reading no journal; the page shown reads its durable runs' steps", async () => {
    // Prepare
    const store = createScriptExecutionStore(journalResults);
    const journal = createJournal(journalResults);
    const [userId, scriptId] = [newId('usr'), newId('scr')];
    const runs = Array.from({ length: 6 }, (_, index) => run(userId, scriptId, `2099-06-0${index + 1}T10:00:00.000Z`, index % 2 === 1));
    for (const each of runs) await store.putRunning(each);
    for (const each of runs.filter((candidate) => candidate.durable))
      await journal.putEntry({
        executionId: each.executionId,
        name: 'fetch',
        seq: 1,
        type: 'step',
        status: 'succeeded',
        startedAt: each.createdAt,
        endedAt: each.createdAt,
        result: '{"ok":true}',
        expiresAt: Math.floor(nowMs / 1000),
      });
    // Act
    const listed = await tablesRead(() => store.list({ scriptUser: `${scriptId}#${userId}` }));
    const summaries = await tablesRead(() => store.listSummaries({ userId }, 4));
    const count = await store.count({ userId, startDate: '2099-06-03T00:00:00.000Z' });
    const page = await tablesRead(() => store.withSteps(listed.value.slice(0, 2)));
    // Assess
    expect(listed.tables).toEqual(['platform-scriptExecutions']);
    expect(listed.value.map((each) => each.executionId)).toEqual(runs.map((each) => each.executionId).reverse());
    expect(summaries.tables).toEqual(['platform-scriptExecutions']);
    expect(summaries.value.map((each) => each.executionId)).toEqual(
      runs
        .slice(2)
        .map((each) => each.executionId)
        .reverse(),
    );
    expect(count).toBe(4);
    expect(summaries.value[0]).toEqual({
      executionId: runs[5]!.executionId,
      scriptId,
      trigger: { type: 'manual' },
      status: 'success',
      error: null,
      duration: 5,
      cost: 0.0001,
      createdAt: runs[5]!.createdAt,
      finishedAt: runs[5]!.createdAt,
      durable: true,
    });
    expect(page.tables).toEqual(['platform-scriptSteps']);
    expect(page.value.map((each) => each.steps?.map((step) => [step.name, step.result]))).toEqual([[['fetch', { ok: true }]], undefined]);
  });

  it('reads every run started at the same instant as the last one asked for, whichever order DynamoDB gives them', async () => {
    // Prepare
    const store = createScriptExecutionStore(journalResults);
    const [userId, scriptId] = [newId('usr'), newId('scr')];
    const newest = run(userId, scriptId, '2099-06-05T10:00:00.000Z', false);
    const tied = Array.from({ length: 3 }, () => run(userId, scriptId, '2099-06-04T10:00:00.000Z', false));
    const oldest = run(userId, scriptId, '2099-06-03T10:00:00.000Z', false);
    for (const each of [newest, ...tied, oldest]) await store.putRunning(each);
    // Act
    const firstTwo = await store.listSummaries({ userId }, 2);
    const firstFour = await store.list({ scriptUser: `${scriptId}#${userId}` }, 4);
    const firstOne = await store.listSummaries({ userId }, 1);
    // Assess
    expect(firstTwo.map((each) => each.executionId).sort()).toEqual([newest, ...tied].map((each) => each.executionId).sort());
    expect(firstFour.map((each) => each.executionId).sort()).toEqual([newest, ...tied].map((each) => each.executionId).sort());
    expect(firstOne.map((each) => each.executionId)).toEqual([newest.executionId]);
  });
});
