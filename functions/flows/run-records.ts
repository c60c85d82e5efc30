// A flow's runs in the platform's one run record (the scripts area's run table, reached through its facade): the record
// of a run as it starts and as it ends, and the runs kept only in flows' rings before the one record, brought into it
// once per owner, lazily on the owner's first read of their runs (the platform migrates itself, locally and on AWS).
import type { Clock } from '#platform/clock.js';
import { runExpiry } from '#platform/run-records.js';
import { type StoredFlowRun, cancelledCode, lineageOf } from '#functions/scripts/api.js';
import type { ExecutionStore, KeptResult, StoredTrigger } from './execution-store.js';
import type { ExecutionResult, FlowItem } from './model.js';
import type { FlowRunRecords } from './ports.js';
import type { FlowStore } from './store.js';

/** What started a flow run, as its record names it: a schedule firing, an event, or its user (runFlow, rerun, replay). */
export interface FlowRunStart {
  type: 'time' | 'event' | 'manual';
  eventType?: string;
  /** The run a replay or rerun runs again, and the step a rerun starts at. */
  replayOf?: string;
  fromStep?: string;
  /** The MCP client that ran the flow as a tool. */
  client?: string;
}

const triggerOf = (start: FlowRunStart): StoredFlowRun['trigger'] => {
  if (start.client !== undefined && !start.replayOf) return { type: 'mcp', source: start.client };
  return { type: start.type === 'time' ? 'schedule' : start.replayOf ? 'manual' : start.type, ...(start.eventType && { event: start.eventType }) };
};

/** The record of a flow run: `result` as an invocation of it left it (status running while it runs). */
export function flowRunRecord(flow: Pick<FlowItem, 'flowId' | 'userId' | 'scriptId'>, result: ExecutionResult, start: FlowRunStart): StoredFlowRun {
  const cancelled = result.status === 'failed' && result.error?.code === cancelledCode;
  return {
    executionId: result.executionId,
    kind: 'flow',
    flowId: flow.flowId,
    scriptId: flow.scriptId ?? null,
    userId: flow.userId,
    ...lineageOf(result.executionId),
    ...(start.replayOf && { origin: { executionId: start.replayOf, ...(start.fromStep !== undefined && { fromStep: start.fromStep }) } }),
    trigger: triggerOf(start),
    createdAt: result.timestamp,
    finishedAt: result.status !== 'waiting' ? new Date(Date.parse(result.timestamp) + result.duration).toISOString() : null,
    status: cancelled ? 'cancelled' : result.status,
    duration: result.duration,
    cost: result.cost,
    logs: result.logs,
    ...(result.logInvocationLines && { logInvocationLines: result.logInvocationLines }),
    ...(result.result !== undefined && { outputJson: JSON.stringify(result.result) }),
    error: result.error ?? null,
    expiresAt: runExpiry(result.timestamp).expiresAt,
  };
}

/** The record of a run as its first invocation starts. */
export const startedFlowRun = (
  flow: Pick<FlowItem, 'flowId' | 'userId' | 'scriptId'>,
  executionId: string,
  startedAt: string,
  start: FlowRunStart,
): StoredFlowRun => ({
  ...flowRunRecord(flow, { executionId, timestamp: startedAt, status: 'waiting', duration: 0, cost: 0, logs: [], result: undefined }, start),
  status: 'running',
});

/** The end `result` writes over a running or waiting record. */
export const flowRunEnd = (result: ExecutionResult) => {
  const { status, duration, cost, logs, logInvocationLines, error, finishedAt } = flowRunRecord({ flowId: '', userId: '', scriptId: null }, result, {
    type: 'manual',
  });
  return { status, duration, cost, logs, logInvocationLines, error, finishedAt, output: result.result };
};

const startOf = (trigger: StoredTrigger | undefined): FlowRunStart => ({ type: trigger?.type ?? 'manual', eventType: trigger?.eventType });

/** The caller's flows read at once while bringing their rings in. */
const flowsAtOnce = 10;

export function createFlowRunMigration(deps: {
  flows: Pick<FlowStore, 'getOwner' | 'listByUser' | 'markRunsMigrated'>;
  executions: Pick<ExecutionStore, 'listKept'>;
  records: Pick<FlowRunRecords, 'putMigrated'>;
  clock: Clock;
}) {
  return {
    /** Brings the owner's kept flow runs into the one record, once: an owner with no flows, or marked, costs one read. */
    async migrate(userId: string): Promise<void> {
      const owner = await deps.flows.getOwner(userId);
      if (!owner || owner.runsMigrated) return;
      const flows = await deps.flows.listByUser(userId, ['flowId', 'userId', 'scriptId']);
      for (let index = 0; index < flows.length; index += flowsAtOnce)
        await Promise.all(
          flows.slice(index, index + flowsAtOnce).map(async (flow) => {
            const kept: KeptResult[] = await deps.executions.listKept(flow.flowId, deps.clock.now());
            await deps.records.putMigrated(kept.map(({ result, trigger }) => flowRunRecord(flow, result, startOf(trigger))));
          }),
        );
      await deps.flows.markRunsMigrated(userId);
    },
  };
}

export type FlowRunMigration = ReturnType<typeof createFlowRunMigration>;
