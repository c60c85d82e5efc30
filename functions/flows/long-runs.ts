// runFlow through the platform's long-run mechanism (functions/platform/long-runs.ts): the flow's place is taken
// here (every refusal answers at once), and the answer is the execution's result when it ends within the bound,
// otherwise `running`: the run goes on and records its result in the flow's history (getFlow, GET
// /api/sdk/v1/executions).
import type { DeliveryLedger } from '#functions/events/api.js';
import type { BoundedWaitOptions } from '#platform/bounded-wait.js';
import type { Caller } from '#platform/caller.js';
import type { Clock } from '#platform/clock.js';
import { createLongRun } from '#platform/long-runs.js';
import type { BackgroundRuns } from '#platform/ports.js';
import type { ExecutionStore } from './execution-store.js';
import type { AdmittedFlowRun, FlowRuns } from './flow-runs.js';
import type { ExecutionResult } from './model.js';

export type ApiFlowRun = { ended: ExecutionResult } | { running: { executionId: string; status: 'running' | 'waiting' } };

export interface FlowLongRunsDeps {
  runs: Pick<FlowRuns, 'admit' | 'finish' | 'release'>;
  executions: Pick<ExecutionStore, 'getResult'>;
  /** Claims each job once: a repeated delivery of the asynchronous invocation runs nothing. */
  ledger: Pick<DeliveryLedger, 'claim' | 'complete'>;
  background: (run: (job: AdmittedFlowRun) => Promise<ExecutionResult | undefined>) => BackgroundRuns<AdmittedFlowRun, ExecutionResult | undefined>;
  boundMs: number;
  clock: Clock;
  pause?: BoundedWaitOptions<unknown>['pause'];
}

export const flowRunJobId = (executionId: string) => `flow-run#${executionId}`;

export function createFlowLongRuns(deps: FlowLongRunsDeps) {
  const { ledger } = deps;
  const longRun = createLongRun<AdmittedFlowRun, ExecutionResult>({
    background: deps.background,
    run: (admitted) => deps.runs.finish(admitted),
    async claim(admitted) {
      const jobId = flowRunJobId(admitted.executionId);
      const token = await ledger.claim(jobId);
      // The executor records the flow's own failures; the claim is completed either way so no retry runs it again.
      return token
        ? async (result) => void (await ledger.complete(jobId, token, { result: 'executed', executionId: result.executionId, status: result.status }))
        : undefined;
    },
    recordedEnd: (admitted) => deps.executions.getResult(admitted.flow.flowId, admitted.flow.executionCount, admitted.executionId),
    boundMs: deps.boundMs,
    clock: deps.clock,
    pause: deps.pause,
  });

  return {
    runJob: longRun.runJob,

    /** Ownership is the caller's to check (FlowService.run); `client` names the MCP client of a flow tool. */
    async run(caller: Caller, flowId: string, client?: string): Promise<ApiFlowRun> {
      const admitted = await deps.runs.admit(
        { flowId, userId: caller.userId },
        { type: 'manual', data: { flowId, manual: true, requestedAt: deps.clock.nowIso() }, attempt: 0, ...(client !== undefined && { client }) },
      );
      const answer = await longRun.start(admitted, { notStarted: () => deps.runs.release(admitted) });
      // A direct flow whose durable script suspended answers at once, as one still running does: it goes on later.
      if ('ended' in answer && answer.ended.status === 'waiting') return { running: { executionId: admitted.executionId, status: 'waiting' } };
      return 'ended' in answer ? answer : { running: { executionId: admitted.executionId, status: 'running' } };
    },
  };
}

export type FlowLongRuns = ReturnType<typeof createFlowLongRuns>;
