// GET /api/sdk/v1/executions: the caller's runs across scripts and flows, newest first, whatever the number of
// flows: from the runs table's per-user index, the flow executions' own and, when there are flow executions, the
// caller's flows for what each ran (an execution written as its flow was deleted is not shown), reading only the
// fields shown. Script runs, the bulk of the history, are read only up to the page's end and counted by DynamoDB when
// no filter but the date range applies; a filter on status, trigger, script or flow reads the range's runs and
// filters them here.
import type { RunSummary } from '#functions/scripts/model.js';
import type { FlowRunSummary } from './execution-store.js';
import type { FlowItem } from './model.js';

export type HistoryStatus = 'running' | 'waiting' | 'success' | 'failed';

export interface HistoryItem {
  executionId: string;
  /** `script`: one run of a script (a direct flow's script run too, with trigger `flow`); `flow`: one run of a flow. */
  kind: 'script' | 'flow';
  scriptId: string | null;
  flowId: string | null;
  status: HistoryStatus;
  trigger: string;
  /** What started it: a subscription, schedule, webhook or flow id, when there is one. */
  source: string | null;
  startedAt: string;
  duration: number;
  cost: number;
  error: { code: string; message: string } | null;
}

export interface HistoryQuery {
  status?: HistoryStatus;
  trigger?: string;
  scriptId?: string;
  flowId?: string;
  startDate?: string;
  endDate?: string;
  limit: number;
  offset: number;
}

type Range = { startDate?: string; endDate?: string };

export interface RunHistoryDeps {
  /** The user's script runs in the range, newest first; with `first`, that many. */
  scriptRuns(userId: string, range: Range, first?: number): Promise<RunSummary[]>;
  countScriptRuns(userId: string, range: Range): Promise<number>;
  flows(userId: string): Promise<Pick<FlowItem, 'flowId' | 'scriptId' | 'trigger'>[]>;
  /** The user's kept flow executions in the range across flows, newest first. */
  flowRuns(userId: string, range: Range): Promise<FlowRunSummary[]>;
}

const fromScript = (run: RunSummary): HistoryItem => ({
  executionId: run.executionId,
  kind: 'script',
  scriptId: run.scriptId,
  flowId: run.trigger.type === 'flow' ? (run.trigger.source ?? null) : null,
  status: run.status === 'running' || run.status === 'waiting' || run.status === 'success' ? run.status : 'failed',
  trigger: run.trigger.type,
  // An MCP tool call's run names the client that called the tool.
  source: run.trigger.source ?? run.trigger.client ?? null,
  startedAt: run.createdAt,
  duration: run.duration,
  cost: run.cost,
  error: run.error && { code: run.error.code, message: run.error.message },
});

const fromFlow = (flow: Pick<FlowItem, 'flowId' | 'scriptId' | 'trigger'>, result: FlowRunSummary): HistoryItem => ({
  executionId: result.executionId,
  kind: 'flow',
  scriptId: flow.scriptId,
  flowId: flow.flowId,
  status: result.status,
  trigger: flow.trigger.type === 'time' ? 'schedule' : 'event',
  source: null,
  startedAt: result.timestamp,
  duration: result.duration,
  cost: result.cost,
  error: result.error ?? null,
});

export function createRunHistory(deps: RunHistoryDeps) {
  return {
    async list(userId: string, query: HistoryQuery): Promise<{ executions: HistoryItem[]; total: number; limit: number; offset: number }> {
      const range = { startDate: query.startDate, endDate: query.endDate };
      const wantFlows = !query.scriptId && (!query.trigger || query.trigger === 'schedule' || query.trigger === 'event');
      // Newest first in both sources: the merged page's script runs are among the first `offset + limit`.
      const filtered = Boolean(query.status || query.trigger || query.scriptId || query.flowId);
      const first = filtered ? undefined : query.offset + query.limit;
      const [scriptItems, flowItems, scriptTotal] = await Promise.all([
        deps.scriptRuns(userId, range, first).then((runs) => runs.map(fromScript)),
        wantFlows
          ? deps.flowRuns(userId, range).then(async (runs) => {
              // What each execution ran, read only when there are executions to show.
              const byId = new Map(runs.length ? (await deps.flows(userId)).map((flow) => [flow.flowId, flow]) : []);
              return runs.flatMap((run) => {
                const flow = byId.get(run.flowId);
                return flow ? [fromFlow(flow, run)] : [];
              });
            })
          : [],
        filtered ? undefined : deps.countScriptRuns(userId, range),
      ]);
      const matching = [...scriptItems, ...flowItems]
        .filter((item) => (!query.status || item.status === query.status) && (!query.trigger || item.trigger === query.trigger))
        .filter((item) => (!query.scriptId || item.scriptId === query.scriptId) && (!query.flowId || item.flowId === query.flowId))
        .sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.executionId.localeCompare(a.executionId));
      const total = scriptTotal === undefined ? matching.length : scriptTotal + flowItems.length;
      return { executions: matching.slice(query.offset, query.offset + query.limit), total, limit: query.limit, offset: query.offset };
    },
  };
}
