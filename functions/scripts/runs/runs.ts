// Every run the caller owns, of a script or of a flow, read from the one record: one run by id (GET
// /api/sdk/v1/executions/{executionId}) and the runs newest first with filters (GET /api/sdk/v1/executions). Runs a
// flow kept only in its ring before the one record are brought into it first, once per owner (`migrate`).
import type { Clock } from '#platform/clock.js';
import { NotFoundError } from '#platform/errors.js';
import type { TimeRange } from '#platform/run-records.js';
import { logTexts, settledRun } from '../model.js';
import type { ExecutionStore, StepsPage } from './execution-store.js';
import { type RunKind, type RunStatus, type RunView, flowRunStatus, linesByInvocation, scriptRunStatus, statusWords } from './run-record.js';
import type { ListedRun, RunStore, StoredRun } from './run-store.js';

export interface RunListQuery extends TimeRange {
  kind?: RunKind;
  /** A status word of any vocabulary (statusWords). */
  status?: string;
  trigger?: string;
  scriptId?: string;
  flowId?: string;
  /** Only the children of this run. */
  parentExecutionId?: string;
  /** Only the runs no other run started: a flow's trigger is one run, its script run reached from it. */
  topLevel?: 'true' | 'false';
  limit: number;
  offset: number;
}

/** What a list shows of a run: its record without steps, logs and output (GET .../executions/{executionId} has them). */
export interface RunListItem extends Omit<RunView, 'trigger' | 'steps' | 'stepsNextCursor' | 'logs' | 'logLines' | 'output'> {
  trigger: string;
  /** What started it: a subscription, schedule, webhook or flow id, or an MCP run's client, when there is one. */
  source: string | null;
}

export interface RunsDeps {
  records: RunStore;
  executions: Pick<ExecutionStore, 'getLogs'>;
  clock: Clock;
  /** Brings the user's runs kept before the one record into it, once per user (flows' rings). */
  migrate(userId: string): Promise<void>;
}

/** The fields a list item and a full record share, of either kind; a script run past its deadline reads as it settles. */
function summaryOf(run: ListedRun, nowIso: string): RunListItem {
  const lineage = {
    executionId: run.executionId,
    parentExecutionId: run.parentExecutionId ?? null,
    rootExecutionId: run.rootExecutionId ?? run.executionId,
    trigger: run.trigger.type,
    source: run.trigger.source ?? ('client' in run.trigger ? run.trigger.client : undefined) ?? null,
    cost: run.cost,
    startedAt: run.createdAt,
    createdAt: run.createdAt,
    ...(run.origin && { origin: run.origin }),
  };
  const errorOf = (error: { code: string; message: string } | null) => (error ? { code: error.code, message: error.message } : null);
  if (run.kind === 'flow') {
    const status = flowRunStatus(run.status, run.error);
    return {
      ...lineage,
      kind: 'flow',
      scriptId: run.scriptId,
      flowId: run.flowId,
      status,
      error: errorOf(run.error),
      duration: run.duration,
      endedAt: run.finishedAt,
    };
  }
  const settled = settledRun(run, nowIso);
  return {
    ...lineage,
    kind: 'script',
    scriptId: run.scriptId,
    flowId: run.trigger.type === 'flow' ? (run.trigger.source ?? null) : null,
    status: scriptRunStatus(settled.status),
    ...(settled.queue && { queue: settled.queue }),
    ...(settled.reason && { reason: settled.reason }),
    error: errorOf(settled.error),
    duration: settled.duration,
    endedAt: settled.finishedAt,
  };
}

export function createRuns(deps: RunsDeps) {
  const { records, clock } = deps;

  /** The caller's run; another user's, or an unknown id, is NOT_FOUND. */
  async function owned(userId: string, executionId: string): Promise<StoredRun> {
    let run = await records.get(executionId);
    if (!run) {
      await deps.migrate(userId);
      run = await records.get(executionId, true);
    }
    if (!run || run.userId !== userId) throw new NotFoundError('executionId', executionId, 'execution');
    return run;
  }

  return {
    owned,

    async get(userId: string, executionId: string, page: StepsPage): Promise<RunView> {
      const run = await owned(userId, executionId);
      const [logLines, steps] = await Promise.all([
        run.kind === 'flow' ? linesByInvocation(run.logs, run.logInvocationLines) : deps.executions.getLogs(executionId),
        run.kind === 'flow' || run.durable ? records.steps(executionId, page) : { steps: [] },
      ]);
      const { source: _source, trigger: _trigger, ...summary } = summaryOf(run, clock.nowIso());
      const output: unknown = run.kind === 'flow' ? (run.outputJson === undefined ? null : JSON.parse(run.outputJson)) : (run.output ?? null);
      return {
        ...summary,
        trigger: { type: run.trigger.type, source: run.trigger.source ?? null, event: typeof run.trigger.event === 'string' ? run.trigger.event : null },
        ...steps,
        logs: logTexts(logLines),
        logLines,
        output,
      };
    },

    /** Newest first; without filters besides the range only the runs up to the page's end are read, and DynamoDB counts the rest. */
    async list(userId: string, query: RunListQuery): Promise<{ executions: RunListItem[]; total: number; limit: number; offset: number }> {
      await deps.migrate(userId);
      const range = { startDate: query.startDate, endDate: query.endDate };
      const status: RunStatus | undefined = query.status === undefined ? undefined : statusWords[query.status];
      const filtered = Boolean(query.kind || status || query.trigger || query.scriptId || query.flowId || query.parentExecutionId || query.topLevel === 'true');
      const [runs, counted] = await Promise.all([
        records.listByUser(userId, range, filtered ? undefined : query.offset + query.limit),
        filtered ? undefined : records.countByUser(userId, range),
      ]);
      const now = clock.nowIso();
      const matching = runs
        .map((run) => summaryOf(run, now))
        .filter((item) => (!query.kind || item.kind === query.kind) && (!status || item.status === status))
        .filter((item) => (!query.trigger || item.trigger === query.trigger) && (!query.scriptId || item.scriptId === query.scriptId))
        .filter((item) => (!query.flowId || item.flowId === query.flowId) && (!query.parentExecutionId || item.parentExecutionId === query.parentExecutionId))
        .filter((item) => query.topLevel !== 'true' || !item.parentExecutionId)
        .sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.executionId.localeCompare(a.executionId));
      return {
        executions: matching.slice(query.offset, query.offset + query.limit),
        total: counted ?? matching.length,
        limit: query.limit,
        offset: query.offset,
      };
    },
  };
}

export type Runs = ReturnType<typeof createRuns>;
