// The long-run rule with fakes: a run's end within the bound, `running` past it (in this process, or read from the
// record as on AWS), a job that runs once however often it is delivered, and nothing left behind when a run cannot start.
import { describe, expect, it } from 'vitest';
import { createFlowLongRuns } from '../../functions/flows/long-runs.js';
import type { AdmittedFlowRun } from '../../functions/flows/flow-runs.js';
import type { ExecutionResult as FlowResult } from '../../functions/flows/model.js';
import { TooManyRequestsError } from '../../functions/platform/errors.js';
import type { StartedRun } from '../../functions/platform/ports.js';
import { createLongRuns } from '../../functions/scripts/runs/long-runs.js';
import { type Execution, settledRun } from '../../functions/scripts/model.js';
import type { AdmittedRun, ExecutionResult } from '../../functions/scripts/runs/runner.js';

const running = { executionId: 'exe_1', scriptId: 'scr_1', userId: 'usr_1', status: 'running', output: null, error: null } as unknown as Execution;
const admitted = { running, dailyCounter: 'daily#scr_1#2099-03-02' } as unknown as AdmittedRun;
const finished = (output: unknown): ExecutionResult => ({
  execution: { ...running, status: 'success', output },
  logs: ['done'],
  logLines: [{ text: 'done', invocation: 1 }],
  output,
});

/** The bound passes at the first pause unless `boundNeverPasses`; each pause moves the clock. */
function world(
  options: {
    started?: (job: AdmittedRun, run: (job: AdmittedRun) => Promise<ExecutionResult | undefined>) => Promise<StartedRun<ExecutionResult | undefined>>;
    records?: Execution[];
    boundNeverPasses?: boolean;
  } = {},
) {
  let now = 0;
  const log: string[] = [];
  const records = [...(options.records ?? [])];
  const claimed = new Set<string>();
  const runs = createLongRuns({
    runner: {
      admitOrQueue: async () => admitted,
      runAdmitted: async () => {
        log.push('ran');
        return finished('ran');
      },
    },
    executions: {
      putRunning: async () => void log.push('putRunning'),
      claim: async (executionId) => !claimed.has(executionId) && Boolean(claimed.add(executionId)),
      get: async () => records.shift() ?? running,
      getLogs: async () => [{ text: 'from the record', invocation: 1 }],
      remove: async () => void log.push('remove'),
      releaseDailyRun: async () => void log.push('releaseDailyRun'),
    },
    background: (run) => ({ start: (job) => (options.started ?? (async () => ({ ended: run(job), detached: true })))(job, run) }),
    boundMs: 1000,
    clock: { now: () => now, nowIso: () => new Date(now).toISOString() },
    pause: options.boundNeverPasses ? () => new Promise<void>(() => undefined) : async (ms) => void (now += ms),
  });
  return { runs, log };
}

const request = { scriptId: 'scr_1', userId: 'usr_1', data: {}, trigger: { type: 'manual' as const }, viaApi: true };

describe('long runs: scripts', () => {
  it('answers the end of a run that ends within the bound in this process', async () => {
    // Prepare
    const { runs, log } = world({ boundNeverPasses: true });
    // Act
    const answer = await runs.execute(request);
    // Assess
    expect(answer).toEqual({ ended: finished('ran') });
    expect(log).toEqual(['putRunning', 'ran']);
  });

  it('answers running at the bound while the run goes on in this process', async () => {
    // Prepare
    const never = new Promise<ExecutionResult>(() => undefined);
    const { runs } = world({ started: async () => ({ ended: never, detached: true }) });
    // Act
    const answer = await runs.execute({ ...request });
    // Assess
    expect(answer).toEqual({ running });
  });

  it('reads the end from the record when the run goes on in another invocation, as on AWS', async () => {
    // Prepare
    const { runs } = world({
      started: async () => ({ detached: true }),
      records: [running, running, { ...running, status: 'success', output: { ok: true } } as Execution],
    });
    // Act
    const answer = await runs.execute(request);
    // Assess
    expect(answer).toEqual({
      ended: {
        execution: expect.objectContaining({ status: 'success' }),
        logs: ['from the record'],
        logLines: [{ text: 'from the record', invocation: 1 }],
        output: { ok: true },
      },
    });
  });

  it('answers running when the record still says running at the bound', async () => {
    // Prepare
    const { runs } = world({ started: async () => ({ detached: true }) });
    // Act
    const answer = await runs.execute(request);
    // Assess
    expect(answer).toEqual({ running });
  });

  it('waits past the bound for a run that could only start inside the request', async () => {
    // Prepare
    const { runs } = world({ started: async (job, run) => ({ ended: run(job), detached: false }) });
    // Act
    const answer = await runs.execute(request);
    // Assess
    expect(answer).toEqual({ ended: finished('ran') });
  });

  it('runs a job once, however often it is delivered', async () => {
    // Prepare
    const { runs, log } = world();
    // Act
    const first = await runs.runJob(admitted);
    const again = await runs.runJob(admitted);
    // Assess
    expect(first).toEqual(finished('ran'));
    expect(again).toBeUndefined();
    expect(log).toEqual(['ran']);
  });

  it('gives the day back and keeps no record when the run cannot start', async () => {
    // Prepare
    const { runs, log } = world({ started: async () => Promise.reject(new Error('invoke refused')) });
    // Act
    const refused = await runs.execute(request).catch((error: Error) => error.message);
    // Assess
    expect(refused).toBe('invoke refused');
    expect(log).toEqual(['putRunning', 'releaseDailyRun', 'remove']);
  });

  it('answers a refusal of the runtime within the bound as the error, with no run recorded', async () => {
    // Prepare
    const busy = new TooManyRequestsError('CONCURRENCY_LIMIT', 'busy', 1);
    const { runs, log } = world({ started: async () => ({ ended: Promise.reject(busy), detached: true }), boundNeverPasses: true });
    // Act
    const refused = await runs.execute(request).catch((error: TooManyRequestsError) => error.code);
    // Assess
    expect(refused).toBe('CONCURRENCY_LIMIT');
    expect(log).toEqual(['putRunning', 'remove']);
  });
});

describe('long runs: a run that lost its process', () => {
  it('reads as timed out once past its runningUntil, and as running before', () => {
    // Prepare
    const record = { ...running, runningUntil: '2099-03-02T09:05:30.000Z' };
    // Act
    const before = settledRun(record, '2099-03-02T09:05:00.000Z');
    const after = settledRun(record, '2099-03-02T09:06:00.000Z');
    const ended = settledRun({ ...record, status: 'success' }, '2099-03-02T09:06:00.000Z');
    // Assess
    expect(before.status).toBe('running');
    expect(after).toMatchObject({ status: 'timeout', error: { code: 'TIMEOUT' }, finishedAt: '2099-03-02T09:05:30.000Z' });
    expect(ended.status).toBe('success');
  });

  it('reads a durable run past its runningUntil as running: its watchdog continues it in a new invocation', () => {
    // Prepare
    const record: Execution = { ...running, durable: true, runningUntil: '2099-03-02T09:05:30.000Z' };
    // Act
    const after = settledRun(record, '2099-03-02T09:06:00.000Z');
    // Assess
    expect(after).toEqual(record);
  });
});

describe('long runs: runFlow', () => {
  const flowRun = {
    flow: { flowId: 'flw_1', executionCount: 3 },
    executionId: 'exe_f',
    startedAt: '2099-03-02T09:00:00.000Z',
    trigger: { type: 'manual', data: {}, attempt: 0 },
  } as unknown as AdmittedFlowRun;
  const result: FlowResult = { executionId: 'exe_f', timestamp: flowRun.startedAt, status: 'success', duration: 1, cost: 0, logs: [], result: 'ok' };

  function flowWorld(started: (run: (job: AdmittedFlowRun) => Promise<FlowResult | undefined>) => StartedRun<FlowResult | undefined>, recorded?: FlowResult) {
    const log: string[] = [];
    const claims = new Set<string>();
    let now = 0;
    const runs = createFlowLongRuns({
      runs: { admit: async () => flowRun, finish: async () => (log.push('finished'), result), release: async () => void log.push('released') },
      executions: { getResult: async (flowId, number, executionId) => (flowId === 'flw_1' && number === 3 && executionId === 'exe_f' ? recorded : undefined) },
      ledger: { claim: async (id) => (claims.has(id) ? undefined : (claims.add(id), 'token')), complete: async () => void log.push('completed') },
      background: (run) => ({ start: async (job) => started((next) => run(next ?? job)) }),
      boundMs: 500,
      clock: { now: () => now, nowIso: () => new Date(now).toISOString() },
      pause: async (ms) => void (now += ms),
    });
    return { runs, log };
  }
  const caller = { userId: 'usr_1', keyId: 'key_1', scopes: ['*'] };

  it('answers the result recorded in the flow history within the bound, and running without it', async () => {
    // Prepare
    const recordedElsewhere = flowWorld(() => ({ detached: true }), result);
    const stillRunning = flowWorld(() => ({ detached: true }));
    // Act
    const ended = await recordedElsewhere.runs.run(caller, 'flw_1');
    const running = await stillRunning.runs.run(caller, 'flw_1');
    // Assess
    expect(ended).toEqual({ ended: result });
    expect(running).toEqual({ running: { executionId: 'exe_f', status: 'running' } });
  });

  it('runs a job once however often it is delivered, and gives the place back when the run cannot start', async () => {
    // Prepare
    const { runs, log } = flowWorld(() => ({ detached: true }));
    const refused = flowWorld(() => {
      throw new Error('invoke refused');
    });
    // Act
    const first = await runs.runJob(flowRun);
    const again = await runs.runJob(flowRun);
    const failure = await refused.runs.run(caller, 'flw_1').catch((error: Error) => error.message);
    // Assess
    expect(first).toEqual(result);
    expect(again).toBeUndefined();
    expect(log).toEqual(['finished', 'completed']);
    expect(failure).toBe('invoke refused');
    expect(refused.log).toEqual(['released']);
  });
});
