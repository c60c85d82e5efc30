// Operating a flow's runs through the run operations, as a durable script's runs are: cancel an llm flow's run that
// waits (for a tool call's approval), re-run one execution (whole, or from one of its steps: a model turn, an
// approval or a tool call), replay a flow's ended executions in bulk. Only the flow's owner may operate its runs:
// anyone else gets NOT_FOUND. A re-run or replay is a new execution started on the bus, so the flow's 10 concurrent
// places and its daily limit hold: one that finds the places taken is delivered again later.
import type { Clock } from '#platform/clock.js';
import { cancelledCode } from '#functions/scripts/api.js';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { newId } from '#platform/ids.js';
import type { EventPublisher } from '#platform/ports.js';
import type { ExecutionStore, KeptResult } from './execution-store.js';
import { flowReplayType } from './internal-events.js';
import type { ExecutionResult, ExecutionStatus } from './model.js';
import type { DurableFlowRuns, FlowRunRecords } from './ports.js';
import { flowRunEnd } from './run-records.js';
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
/** The caller's flows indexed at once. */
const flowsAtOnce = 10;

export interface FlowReplayFilter {
  flowId: string;
  status?: string;
  from?: string;
  to?: string;
}

export function createFlowRunOperations(deps: {
  flows: Pick<FlowStore, 'get' | 'listByUser' | 'getOwner' | 'markExecutionsIndexed'>;
  executions: Pick<ExecutionStore, 'findKept' | 'putLookups' | 'listKept' | 'settle'>;
  records: Pick<FlowRunRecords, 'end'>;
  durable: Pick<DurableFlowRuns, 'cancel' | 'reuseSteps'>;
  publisher: EventPublisher;
  clock: Clock;
}) {
  const { executions, clock } = deps;

  /**
   * The caller's execution among their flows' kept results, through its lookup; anyone else's, or an unknown one, is
   * NOT_FOUND. Results kept before lookups were written have none: the first miss of an owner not yet marked indexed
   * writes the lookups of all their flows' kept results (once per owner; new owners are marked with their first flow).
   */
  async function owned(userId: string, executionId: string): Promise<{ flowId: string; kept: KeptResult }> {
    const found = await executions.findKept(executionId, clock.now());
    if (found?.ownerId === userId) return found;
    if (!found && !(await deps.flows.getOwner(userId))?.executionsIndexed) {
      const indexed = await indexKeptResults(userId);
      const match = indexed.find(({ kept }) => kept.result.executionId === executionId);
      if (match) return match;
    }
    throw new NotFoundError('executionId', executionId, 'execution');
  }

  /** Writes the lookups of the kept results of every flow of the owner, then marks the owner indexed. */
  async function indexKeptResults(userId: string): Promise<Array<{ flowId: string; kept: KeptResult }>> {
    const flows = await deps.flows.listByUser(userId, ['flowId']);
    const indexed: Array<{ flowId: string; kept: KeptResult }> = [];
    for (let index = 0; index < flows.length; index += flowsAtOnce)
      await Promise.all(
        flows.slice(index, index + flowsAtOnce).map(async ({ flowId }) => {
          const kept = await executions.listKept(flowId, clock.now());
          await executions.putLookups({ flowId, userId }, kept);
          indexed.push(...kept.map((one) => ({ flowId, kept: one })));
        }),
      );
    await deps.flows.markExecutionsIndexed(userId);
    return indexed;
  }

  /** A new execution of the flow with the trigger data `kept` started with, run under `executionId`. */
  async function startAgain(userId: string, flowId: string, kept: KeptResult, executionId: string, fromStep?: string): Promise<void> {
    await deps.publisher.publish({
      type: flowReplayType,
      source: 'flows',
      userId,
      flowId,
      executionId,
      replayOf: kept.result.executionId,
      ...(fromStep !== undefined && { fromStep }),
      trigger: kept.trigger,
    });
  }

  return {
    /**
     * Stops an llm flow's run that waits: its open waits end as cancelled (a decision then is refused) and the
     * execution is recorded as failed with CANCELLED, the flows' statuses having no `cancelled`. Like a manual run's
     * end it starts no retries and counts toward no pause.
     */
    async cancel(userId: string, executionId: string): Promise<ExecutionResult> {
      const { flowId, kept } = await owned(userId, executionId);
      const { result } = kept;
      if (result.status !== 'waiting') throw new ConflictError(`execution ${executionId} is ${result.status}, not running or waiting`, { executionId });
      if (!(await deps.durable.cancel(executionId))) {
        const why = result.scriptExecutionId
          ? `it waits on the durable script run ${result.scriptExecutionId}: cancel that run`
          : 'only runs of llm flows with approval rules are durable';
        throw new ConflictError(`execution ${executionId} is not a durable run: ${why}`, { executionId });
      }
      const { scriptExecutionId: _script, ...shown } = result;
      const cancelled: ExecutionResult = {
        ...shown,
        status: 'failed',
        duration: Math.max(result.duration, clock.now() - Date.parse(result.timestamp)),
        logs: [...result.logs, 'the run was cancelled by its user'].slice(0, 200),
        error: { code: cancelledCode, message: 'the run was cancelled by its user' },
      };
      if (await executions.settle(flowId, kept, cancelled)) await deps.records.end(executionId, flowRunEnd(cancelled));
      return cancelled;
    },

    /** A new execution's id; with `fromStep`, the steps before it keep their stored results and do not run again. */
    async rerun(userId: string, executionId: string, fromStep?: string): Promise<string> {
      const { flowId, kept } = await owned(userId, executionId);
      if (kept.trigger?.dataJson === undefined)
        throw new ConflictError(`execution ${executionId} did not keep its input: it cannot be re-run`, { executionId });
      const started = newId('exe');
      if (fromStep !== undefined) await deps.durable.reuseSteps(executionId, started, fromStep);
      await startAgain(userId, flowId, kept, started, fromStep);
      return started;
    },

    /** The caller's ended executions of a flow that match, newest first, at most maxReplayRuns; another user's flow is NOT_FOUND. */
    async replay(userId: string, filter: FlowReplayFilter): Promise<string[]> {
      const flow = await deps.flows.get(filter.flowId);
      if (!flow || flow.userId !== userId) throw new NotFoundError('flowId', filter.flowId, 'flow');
      const wanted = filter.status ? [statusOf[filter.status]] : ['success', 'failed'];
      const [from, to] = [filter.from ? Date.parse(filter.from) : -Infinity, filter.to ? Date.parse(filter.to) : Infinity];
      const chosen = (await executions.listKept(flow.flowId, clock.now()))
        .filter(({ result }) => wanted.includes(result.status) && (filter.status !== 'cancelled' || result.error?.code === cancelledCode))
        .filter(({ result }) => Date.parse(result.timestamp) >= from && Date.parse(result.timestamp) <= to)
        // Only what kept its trigger data can run again with it.
        .filter(({ trigger }) => trigger?.dataJson !== undefined)
        .slice(0, maxReplayRuns);
      const started: string[] = [];
      for (const kept of chosen) {
        const executionId = newId('exe');
        await startAgain(userId, flow.flowId, kept, executionId);
        started.push(executionId);
      }
      return started;
    },
  };
}

export type FlowRunOperations = ReturnType<typeof createFlowRunOperations>;
