// One record for every run, of a script or of a flow, in the one run table (`scriptExecutions`, its deployed name):
// the run's kind, its place among other runs (parent and root), what it was made from (a rerun's or replay's origin),
// and the one status vocabulary of the SDK with the words of every other vocabulary mapped onto it.
import type { StepView } from '../../durable/api.js';
import type { NotRunReason, QueuePlace } from '#platform/flow-control.js';

export const runKinds = ['script', 'flow'] as const;
export type RunKind = (typeof runKinds)[number];

/** The SDK's status words: every state a run of either kind can be in. */
export const runStatuses = ['queued', 'running', 'waiting', 'completed', 'failed', 'cancelled', 'timeout', 'skipped', 'expired'] as const;
export type RunStatus = (typeof runStatuses)[number];

/** Every status word of the platform's vocabularies (SDK, REST, flows') to the state it names: any filter takes any of them. */
export const statusWords: Record<string, RunStatus> = {
  queued: 'queued',
  running: 'running',
  waiting: 'waiting',
  completed: 'completed',
  success: 'completed',
  failed: 'failed',
  error: 'failed',
  cancelled: 'cancelled',
  timeout: 'timeout',
  skipped: 'skipped',
  expired: 'expired',
};

/** The run a rerun or a replay was made from, and the step a rerun started at. */
export interface RunOrigin {
  executionId: string;
  fromStep?: string;
}

/**
 * What every stored run carries besides its kind's own fields. Records written before the one record have none of
 * them: they are script runs at the top of their tree (the record reads them so).
 */
export interface RunLineage {
  kind?: RunKind;
  parentExecutionId?: string;
  rootExecutionId?: string;
  origin?: RunOrigin;
}

/** Where a new run stands: under `parent` (a child run, e.g. a flow's script run), or at the top of its own tree. */
export const lineageOf = (
  executionId: string,
  parent?: { parentExecutionId: string; rootExecutionId: string },
): { rootExecutionId: string; parentExecutionId?: string } =>
  parent ? { parentExecutionId: parent.parentExecutionId, rootExecutionId: parent.rootExecutionId } : { rootExecutionId: executionId };

/** A flow's run as the run table holds it (the flow's own ring keeps its last 100 for getFlow). */
export interface StoredFlowRun extends RunLineage {
  executionId: string;
  kind: 'flow';
  flowId: string;
  /** The direct flow's script, or the llm flow's none. */
  scriptId: string | null;
  /** The flow's owner: the partition of the run table's `byUser` index. */
  userId: string;
  createdAt: string;
  finishedAt: string | null;
  status: 'running' | 'waiting' | 'success' | 'failed' | 'cancelled';
  trigger: { type: 'schedule' | 'event' | 'manual' | 'mcp'; source?: string; event?: string };
  duration: number;
  cost: number;
  logs: string[];
  /** How many of `logs` each invocation printed, in order (a run that continued after a wait has more than one). */
  logInvocationLines?: number[];
  /** The result as JSON text (objects keyed by Object.prototype's names survive it). */
  outputJson?: string;
  error: { code: string; message: string } | null;
  expiresAt: number;
}

/** A flow run's end: what an invocation's end, a settled wait or a cancellation writes over its running or waiting record. */
export type FlowRunEnd = Pick<StoredFlowRun, 'status' | 'duration' | 'cost' | 'logs' | 'logInvocationLines' | 'error' | 'finishedAt'> & { output: unknown };

/** A flow run's lines with the invocation that printed each, from how many each printed (lines past the counts are the last's). */
export function linesByInvocation(logs: string[], counts: number[] | undefined): { text: string; invocation: number }[] {
  const invocationOf = (counts ?? [logs.length]).flatMap((count, index) => Array<number>(count).fill(index + 1));
  const last = invocationOf.at(-1) ?? 1;
  return logs.map((text, index) => ({ text, invocation: invocationOf[index] ?? last }));
}

/** A run as the SDK shows it, of either kind: GET /api/sdk/v1/executions/{executionId}. */
export interface RunView {
  executionId: string;
  kind: RunKind;
  scriptId: string | null;
  flowId: string | null;
  parentExecutionId: string | null;
  rootExecutionId: string;
  trigger: { type: string; source: string | null; event: string | null };
  status: RunStatus;
  steps: StepView[];
  stepsNextCursor?: string;
  logs: string[];
  logLines: { text: string; invocation: number; step?: string }[];
  output: unknown;
  error: { code: string; message: string } | null;
  cost: number;
  duration: number;
  startedAt: string;
  endedAt: string | null;
  createdAt: string;
  origin?: RunOrigin;
  /** Only while `queued`: why it waits, for which key value, until when. */
  queue?: QueuePlace;
  /** Only when `skipped` or `expired`: why it did not run. */
  reason?: NotRunReason;
}

/** A script run's stored status as the SDK names it (a run past its deadline reads as it settles: the caller settles it first). */
export const scriptRunStatus = (status: string): RunStatus => statusWords[status] ?? 'failed';

/** A flow run's stored status as the SDK names it; ring records of before kept a cancellation as failed with code CANCELLED. */
export const flowRunStatus = (status: string, error?: { code: string } | null): RunStatus =>
  status === 'failed' && error?.code === cancelledCode ? 'cancelled' : (statusWords[status] ?? 'failed');

/** A cancelled flow run's error code (the flows' ring has no `cancelled` status). */
export const cancelledCode = 'CANCELLED';
