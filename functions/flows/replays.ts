// Replay by flowId: the caller's ended executions of a flow that match, newest first, at most 100, each run again as
// a new execution with the trigger data it started with. Each goes through the bus to the flows' rule, so the flow's
// 10 concurrent places and its daily limit hold: a replay that finds the places taken is delivered again later.
import type { Clock } from '#platform/clock.js';
import { NotFoundError } from '#platform/errors.js';
import { newId } from '#platform/ids.js';
import type { EventPublisher } from '#platform/ports.js';
import type { ExecutionStore } from './execution-store.js';
import { flowReplayType } from './internal-events.js';
import type { ExecutionStatus } from './model.js';
import type { FlowStore } from './store.js';

/** At most this many executions per replay call. */
export const maxReplayRuns = 100;
/** The replay filter's statuses (the scripts' names too) as a flow's execution records them. */
const statusOf: Record<string, ExecutionStatus> = {
  success: 'success',
  completed: 'success',
  failed: 'failed',
  error: 'failed',
  timeout: 'failed',
  cancelled: 'failed',
};

export interface FlowReplayFilter {
  flowId: string;
  status?: string;
  from?: string;
  to?: string;
}

export function createFlowReplays(deps: {
  flows: Pick<FlowStore, 'get'>;
  executions: Pick<ExecutionStore, 'listKept'>;
  publisher: EventPublisher;
  clock: Clock;
}) {
  return {
    /** The new executions' ids; another user's flow is NOT_FOUND. */
    async replay(userId: string, filter: FlowReplayFilter): Promise<string[]> {
      const flow = await deps.flows.get(filter.flowId);
      if (!flow || flow.userId !== userId) throw new NotFoundError('flowId', filter.flowId, 'flow');
      const wanted = filter.status ? [statusOf[filter.status]] : ['success', 'failed'];
      const [from, to] = [filter.from ? Date.parse(filter.from) : -Infinity, filter.to ? Date.parse(filter.to) : Infinity];
      const chosen = (await deps.executions.listKept(flow.flowId, deps.clock.now()))
        .filter(({ result }) => wanted.includes(result.status))
        .filter(({ result }) => Date.parse(result.timestamp) >= from && Date.parse(result.timestamp) <= to)
        // Only what kept its trigger data can run again with it.
        .filter(({ trigger }) => trigger?.dataJson !== undefined)
        .slice(0, maxReplayRuns);
      const started: string[] = [];
      for (const { result, trigger } of chosen) {
        const executionId = newId('exe');
        await deps.publisher.publish({
          type: flowReplayType,
          source: 'flows',
          userId,
          flowId: flow.flowId,
          executionId,
          replayOf: result.executionId,
          trigger,
        });
        started.push(executionId);
      }
      return started;
    },
  };
}

export type FlowReplays = ReturnType<typeof createFlowReplays>;
