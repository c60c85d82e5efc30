// Script executions over the API (executeScript, REST execute) within API Gateway's 30 s: admitted here (every
// refusal answers at once), started in the background (the API function invoking itself on AWS, this process
// locally), and answered with the result when the run ends within the bound, otherwise as running: the run goes on
// and records its end, which getExecution reports.
import type { Clock } from '#platform/clock.js';
import { type BoundedWaitOptions, waitBounded } from '#platform/bounded-wait.js';
import type { BackgroundRuns } from '#platform/ports.js';
import type { ExecutionStore } from './execution-store.js';
import { type Execution, settledRun } from '../model.js';
import type { AdmittedRun, ExecuteRequest, ExecutionResult, ScriptRunner } from './runner.js';

/** The end of a run, or its record while it still runs past the bound. */
export type ApiRun = { ended: ExecutionResult } | { running: Execution };

export interface LongRunsDeps {
  runner: Pick<ScriptRunner, 'admit' | 'runAdmitted'>;
  executions: Pick<ExecutionStore, 'putRunning' | 'claim' | 'get' | 'getLogs' | 'remove' | 'releaseDailyRun'>;
  background: (run: (job: AdmittedRun) => Promise<ExecutionResult | undefined>) => BackgroundRuns<AdmittedRun, ExecutionResult | undefined>;
  boundMs: () => number;
  clock: Clock;
  pause?: BoundedWaitOptions<unknown>['pause'];
}

export function createLongRuns(deps: LongRunsDeps) {
  const { executions, clock } = deps;

  /**
   * The job as the function invoked for it on AWS runs it: takes the run first, since Lambda may deliver an
   * asynchronous event more than once (a repeated delivery gets undefined and runs nothing).
   */
  async function runJob(admitted: AdmittedRun): Promise<ExecutionResult | undefined> {
    if (!(await executions.claim(admitted.running.executionId, clock.nowIso()))) return undefined;
    return deps.runner.runAdmitted(admitted);
  }

  // A job run in this process (locally, or too large to hand over) runs exactly once: no claim needed.
  const jobs = deps.background((admitted) => deps.runner.runAdmitted(admitted));

  /** The run's end as its record tells it; undefined while it runs. */
  async function recordedEnd(executionId: string): Promise<ExecutionResult | undefined> {
    const stored = await executions.get(executionId, true);
    const execution = stored && settledRun(stored, clock.nowIso());
    if (!execution || execution.status === 'running') return undefined;
    return { execution, logs: await executions.getLogs(executionId), output: execution.output };
  }

  return {
    runJob,

    async execute(request: ExecuteRequest): Promise<ApiRun> {
      const admitted = await deps.runner.admit(request);
      const { running } = admitted;
      let started;
      try {
        await executions.putRunning(running);
        started = await jobs.start(admitted);
      } catch (error) {
        // Never started: the day's place goes back and no run is recorded.
        await Promise.all([executions.releaseDailyRun(admitted.dailyCounter), executions.remove(running.executionId)]);
        throw error;
      }
      let waited;
      try {
        waited = await waitBounded({ started, read: () => recordedEnd(running.executionId), boundMs: deps.boundMs(), pause: deps.pause, now: clock.now });
      } catch (error) {
        // Refused by the runtime within the bound (e.g. CONCURRENCY_LIMIT): answered as before, with no run recorded.
        await executions.remove(running.executionId);
        throw error;
      }
      // A durable run that suspended answers at once, as one still running does: it goes on later.
      if (waited.ended && waited.value?.execution.status === 'waiting') return { running: waited.value.execution };
      return waited.ended && waited.value ? { ended: waited.value } : { running };
    },
  };
}

export type LongRuns = ReturnType<typeof createLongRuns>;
