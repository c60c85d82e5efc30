// runFlow within API Gateway's 30 s: the flow's place is taken here (every refusal answers at once), the execution
// runs in the background (the API function invoking itself on AWS, this process locally), and the answer is its
// result when it ends within the bound, otherwise `running`: the run goes on and records its result in the flow's
// history (getFlow, GET /api/sdk/v1/executions).
import type { DeliveryLedger } from '#functions/events/api.js';
import { type BoundedWaitOptions, waitBounded } from '#platform/bounded-wait.js';
import type { Caller } from '#platform/caller.js';
import type { Clock } from '#platform/clock.js';
import type { BackgroundRuns } from '#platform/ports.js';
import type { ExecutionStore } from './execution-store.js';
import type { AdmittedFlowRun, FlowRuns } from './flow-runs.js';
import type { ExecutionResult } from './model.js';

export type ApiFlowRun = { ended: ExecutionResult } | { running: { executionId: string } };

export interface FlowLongRunsDeps {
  runs: Pick<FlowRuns, 'admit' | 'finish' | 'release'>;
  executions: Pick<ExecutionStore, 'getResult'>;
  /** Claims each job once: a repeated delivery of the asynchronous invocation runs nothing. */
  ledger: Pick<DeliveryLedger, 'claim' | 'complete'>;
  background: (run: (job: AdmittedFlowRun) => Promise<ExecutionResult | undefined>) => BackgroundRuns<AdmittedFlowRun, ExecutionResult | undefined>;
  boundMs: () => number;
  clock: Clock;
  pause?: BoundedWaitOptions<unknown>['pause'];
}

export const flowRunJobId = (executionId: string) => `flow-run#${executionId}`;

export function createFlowLongRuns(deps: FlowLongRunsDeps) {
  const { ledger } = deps;

  /** The job as the function invoked for it on AWS runs it: claimed once, then run and recorded. */
  async function runJob(admitted: AdmittedFlowRun): Promise<ExecutionResult | undefined> {
    const jobId = flowRunJobId(admitted.executionId);
    const token = await ledger.claim(jobId);
    if (!token) return undefined;
    // The executor records the flow's own failures; the claim is completed either way so no retry runs it again.
    const result = await deps.runs.finish(admitted);
    await ledger.complete(jobId, token, { result: 'executed', executionId: result.executionId, status: result.status });
    return result;
  }

  // A job run in this process (locally) runs exactly once: the claim guards against Lambda's repeated deliveries.
  const jobs = deps.background((admitted) => deps.runs.finish(admitted));

  return {
    runJob,

    /** Ownership is the caller's to check (FlowService.run). */
    async run(caller: Caller, flowId: string): Promise<ApiFlowRun> {
      const admitted = await deps.runs.admit(
        { flowId, userId: caller.userId },
        { type: 'manual', data: { flowId, manual: true, requestedAt: deps.clock.nowIso() }, attempt: 0 },
      );
      let started;
      try {
        started = await jobs.start(admitted);
      } catch (error) {
        await deps.runs.release(admitted);
        throw error;
      }
      const waited = await waitBounded({
        started,
        boundMs: deps.boundMs(),
        pause: deps.pause,
        now: deps.clock.now,
        read: () => deps.executions.getResult(flowId, admitted.flow.executionCount, admitted.executionId),
      });
      return waited.ended && waited.value ? { ended: waited.value } : { running: { executionId: admitted.executionId } };
    },
  };
}

export type FlowLongRuns = ReturnType<typeof createFlowLongRuns>;
