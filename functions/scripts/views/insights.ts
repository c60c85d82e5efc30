// Reading what scripts did: execution history (each user sees their own runs), one execution with its logs,
// metrics (owner only), and the marketplace.
import type { Clock } from '#platform/clock.js';
import { NotFoundError } from '#platform/errors.js';
import { type ExecutionStore, type StepsPage, runStepsPage } from '../runs/execution-store.js';
import { type MarketplaceFilter, filterMarketplace } from './marketplace.js';
import { type Execution, type ExecutionStatus, type LogLine, type Script, logTexts, settledRun } from '../model.js';
import { dailyRunsCounter } from '../runs/runner.js';
import type { ScriptService } from '../service.js';
import type { ScriptStore } from '../store.js';

export interface HistoryFilter {
  statuses?: ExecutionStatus[];
  startDate?: string;
  endDate?: string;
  limit: number;
  offset: number;
}

export interface Metrics {
  script: Script;
  totalExecutions: number;
  /** 0 to 1; a no-op counts as a success (the interface handler convention). */
  successRate: number;
  errorRate: number;
  averageDuration: number;
  totalCost: number;
  executionsToday: number;
}

/** The states of a run that may still print: a waiting run continues in a new invocation. */
const goingOn = new Set<ExecutionStatus>(['queued', 'running', 'waiting']);

/** How often a follower's long poll reads the run again. */
const followPollMs = 250;

const round = (value: number, digits: number) => Math.round(value * 10 ** digits) / 10 ** digits;

/** Figures from the script's running totals, which outlive the 90-day execution records. */
export function statsOf(script: Script): Omit<Metrics, 'script' | 'executionsToday'> {
  const total = script.totalExecutions ?? 0;
  const successRate = total ? (script.successCount ?? 0) / total : 0;
  return {
    totalExecutions: total,
    successRate: round(successRate, 4),
    errorRate: total ? round(1 - successRate, 4) : 0,
    averageDuration: total ? round((script.totalDuration ?? 0) / total, 2) : 0,
    totalCost: round(script.totalCost ?? 0, 12),
  };
}

export function createInsights(deps: { scripts: ScriptService; store: ScriptStore; executions: ExecutionStore; clock: Clock }) {
  const { executions } = deps;
  async function execution(
    userId: string,
    executionId: string,
    steps: StepsPage | false = runStepsPage,
  ): Promise<{ execution: Execution; logLines: LogLine[] }> {
    const [found, logLines] = await Promise.all([executions.get(executionId, false, steps), executions.getLogs(executionId)]);
    if (!found || found.userId !== userId) throw new NotFoundError('executionId', executionId, 'execution');
    return { execution: settledRun(found, deps.clock.nowIso()), logLines };
  }
  return {
    /** Without a status filter only the runs up to the page's end are read, and DynamoDB counts the rest. */
    async history(userId: string, scriptId: string, filter: HistoryFilter) {
      const script = await deps.scripts.readable(userId, scriptId);
      const now = deps.clock.nowIso();
      const query = { scriptUser: `${scriptId}#${userId}`, startDate: filter.startDate, endDate: filter.endDate };
      const page = async (runs: Execution[]) => executions.withSteps(runs.slice(filter.offset, filter.offset + filter.limit));
      if (!filter.statuses) {
        const [runs, total] = await Promise.all([executions.list(query, filter.offset + filter.limit), executions.count(query)]);
        return { script, executions: await page(runs.map((run) => settledRun(run, now))), total };
      }
      const { statuses } = filter;
      const runs = (await executions.list(query)).map((run) => settledRun(run, now)).filter((run) => statuses.includes(run.status));
      return { script, executions: await page(runs), total: runs.length };
    },

    execution,

    /**
     * Lines of the whole run after `after`: at once when there are some or the run has ended, else when they come or
     * `waitMs` passes. A waiting run has not ended: its next invocation prints on.
     */
    async followLogs(userId: string, executionId: string, after: number, waitMs: number) {
      const until = deps.clock.now() + waitMs;
      for (;;) {
        const { execution: run, logLines } = await execution(userId, executionId, false);
        const done = !goingOn.has(run.status);
        if (done || logLines.length > after || deps.clock.now() >= until) {
          const entries = logLines.slice(after);
          return { executionId, status: run.status, lines: logTexts(entries), entries, next: Math.max(after, logLines.length), done };
        }
        await new Promise((resolve) => setTimeout(resolve, followPollMs));
      }
    },

    async metrics(userId: string, scriptId: string): Promise<Metrics> {
      const script = await deps.scripts.owned(userId, scriptId);
      const executionsToday = await executions.readDailyRuns(dailyRunsCounter(scriptId, deps.clock.now()));
      return { script, ...statsOf(script), executionsToday };
    },

    async marketplace(query: MarketplaceFilter, page: { limit: number; offset: number }) {
      const matching = filterMarketplace(await deps.store.listListed(), query, deps.clock.now());
      return { scripts: matching.slice(page.offset, page.offset + page.limit), total: matching.length };
    },
  };
}

export type Insights = ReturnType<typeof createInsights>;
