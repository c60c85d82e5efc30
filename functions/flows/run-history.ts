// GET /api/sdk/v1/executions: the caller's runs across scripts and flows, newest first. Script runs come from the
// runs table's per-user index in one query; flow runs from each of the caller's flows' kept results (at most 100
// per flow), read ten flows at a time, so the cost grows with the number of flows, not of runs.
import type { Execution } from '#functions/scripts/model.js';
import type { ExecutionResult, FlowItem } from './model.js';

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

export interface RunHistoryDeps {
  scriptRuns(userId: string, range: { startDate?: string; endDate?: string }): Promise<Execution[]>;
  flows(userId: string): Promise<Pick<FlowItem, 'flowId' | 'scriptId' | 'trigger'>[]>;
  flowResults(flowId: string): Promise<ExecutionResult[]>;
}

const flowConcurrency = 10;

const fromScript = (run: Execution): HistoryItem => ({
  executionId: run.executionId,
  kind: 'script',
  scriptId: run.scriptId,
  flowId: run.trigger.type === 'flow' ? (run.trigger.source ?? null) : null,
  status: run.status === 'running' || run.status === 'waiting' || run.status === 'success' ? run.status : 'failed',
  trigger: run.trigger.type,
  source: run.trigger.source ?? null,
  startedAt: run.createdAt,
  duration: run.duration,
  cost: run.cost,
  error: run.error && { code: run.error.code, message: run.error.message },
});

const fromFlow = (flow: Pick<FlowItem, 'flowId' | 'scriptId' | 'trigger'>, result: ExecutionResult): HistoryItem => ({
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

async function inBatches<T, R>(items: T[], size: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  for (let index = 0; index < items.length; index += size) results.push(...(await Promise.all(items.slice(index, index + size).map(work))));
  return results;
}

export function createRunHistory(deps: RunHistoryDeps) {
  return {
    async list(userId: string, query: HistoryQuery): Promise<{ executions: HistoryItem[]; total: number; limit: number; offset: number }> {
      const wantFlows = !query.scriptId && (!query.trigger || query.trigger === 'schedule' || query.trigger === 'event');
      const [scriptItems, flowItems] = await Promise.all([
        deps.scriptRuns(userId, query).then((runs) => runs.map(fromScript)),
        wantFlows
          ? deps.flows(userId).then(async (flows) => {
              const chosen = flows.filter((flow) => !query.flowId || flow.flowId === query.flowId);
              return (
                await inBatches(chosen, flowConcurrency, async (flow) => (await deps.flowResults(flow.flowId)).map((result) => fromFlow(flow, result)))
              ).flat();
            })
          : [],
      ]);
      const matching = [...scriptItems, ...flowItems]
        .filter((item) => (!query.status || item.status === query.status) && (!query.trigger || item.trigger === query.trigger))
        .filter((item) => (!query.scriptId || item.scriptId === query.scriptId) && (!query.flowId || item.flowId === query.flowId))
        .filter((item) => (!query.startDate || item.startedAt >= query.startDate) && (!query.endDate || item.startedAt <= query.endDate))
        .sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.executionId.localeCompare(a.executionId));
      return { executions: matching.slice(query.offset, query.offset + query.limit), total: matching.length, limit: query.limit, offset: query.offset };
    },
  };
}
