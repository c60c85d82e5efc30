// Script executions over the API (executeScript, REST execute) through the platform's long-run mechanism
// (functions/platform/long-runs.ts): admitted here (every refusal answers at once), recorded as running, and answered
// with the result when the run ends within the bound, otherwise as running; getExecution reports its end.
import type { Clock } from '#platform/clock.js';
import type { BoundedWaitOptions } from '#platform/bounded-wait.js';
import { createLongRun } from '#platform/long-runs.js';
import type { BackgroundRuns } from '#platform/ports.js';
import type { ExecutionStore } from './execution-store.js';
import { type Execution, settledRun } from '../model.js';
import { type AdmittedRun, type ExecuteRequest, type ExecutionResult, type ScriptRunner, resultLogs } from './runner.js';

/** The end of a run, or its record while it still runs past the bound. */
export type ApiRun = { ended: ExecutionResult } | { running: Execution };

export interface LongRunsDeps {
  runner: Pick<ScriptRunner, 'admitOrQueue' | 'runAdmitted'>;
  executions: Pick<ExecutionStore, 'putRunning' | 'claim' | 'get' | 'getLogs' | 'remove' | 'releaseDailyRun'>;
  background: (run: (job: AdmittedRun) => Promise<ExecutionResult | undefined>) => BackgroundRuns<AdmittedRun, ExecutionResult | undefined>;
  boundMs: number;
  clock: Clock;
  pause?: BoundedWaitOptions<unknown>['pause'];
}

export function createLongRuns(deps: LongRunsDeps) {
  const { executions, clock } = deps;
  const longRun = createLongRun<AdmittedRun, ExecutionResult>({
    background: deps.background,
    run: (admitted) => deps.runner.runAdmitted(admitted),
    // Its record is the claim: a repeated delivery finds it taken.
    claim: async (admitted) => ((await executions.claim(admitted.running.executionId, clock.nowIso())) ? async () => undefined : undefined),
    async recordedEnd({ running }) {
      const stored = await executions.get(running.executionId, true);
      const execution = stored && settledRun(stored, clock.nowIso());
      if (!execution || execution.status === 'running') return undefined;
      return { execution, ...resultLogs(await executions.getLogs(running.executionId)), output: execution.output };
    },
    boundMs: deps.boundMs,
    clock,
    pause: deps.pause,
  });

  return {
    runJob: longRun.runJob,

    /** Starts an admitted child run (`context.invoke`) in the background: its end settles its parent's wait. */
    async startChild(admitted: AdmittedRun): Promise<void> {
      // A queued child starts through its queue.
      if (admitted.running.status === 'queued') return;
      await executions.putRunning(admitted.running);
      await longRun.detach(admitted);
    },

    async execute(request: ExecuteRequest): Promise<ApiRun> {
      const admission = await deps.runner.admitOrQueue(request);
      // Joined a debounce or batch window: the answer names the window's queued run.
      if ('queued' in admission) return { running: admission.queued };
      const admitted = admission;
      const { running } = admitted;
      if (running.status === 'queued') return { running };
      // Never started: the day's place goes back and no run is recorded.
      const notStarted = async () => void (await Promise.all([executions.releaseDailyRun(admitted.dailyCounter), executions.remove(running.executionId)]));
      try {
        await executions.putRunning(running);
      } catch (error) {
        await notStarted();
        throw error;
      }
      const answer = await longRun.start(admitted, {
        notStarted,
        // Refused by the runtime within the bound (e.g. CONCURRENCY_LIMIT): answered as before, with no run recorded.
        failed: () => executions.remove(running.executionId),
      });
      // A durable run that suspended answers at once, as one still running does: it goes on later.
      if ('ended' in answer && answer.ended.execution.status === 'waiting') return { running: answer.ended.execution };
      return 'ended' in answer ? answer : { running };
    },
  };
}

export type LongRuns = ReturnType<typeof createLongRuns>;
