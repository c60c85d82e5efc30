// The run history's merge with fakes of its sources (newest first, as the indexes answer): an unfiltered page reads
// script runs only up to its end and takes their total from the count, and answers what reading every run would;
// a filtered one reads the range's runs; flows are read only when there are flow executions to show.
import { describe, expect, it } from 'vitest';
import type { FlowRunSummary } from '../../functions/flows/execution-store.js';
import { type HistoryQuery, type RunHistoryDeps, createRunHistory } from '../../functions/flows/run-history.js';
import type { RunSummary } from '../../functions/scripts/model.js';

const at = (minute: number) => new Date(Date.UTC(2099, 0, 1, 0, minute)).toISOString();

// 30 script runs (every other one failed), and 5 flow executions between them, newest first.
const scriptRuns: RunSummary[] = Array.from({ length: 30 }, (_, index) => ({
  executionId: `exe_s${String(index).padStart(2, '0')}`,
  scriptId: 'scr_1',
  trigger: { type: 'manual' as const },
  status: index % 2 ? ('error' as const) : ('success' as const),
  error: index % 2 ? { code: 'EXECUTION_FAILED', message: 'boom' } : null,
  duration: 5,
  cost: 0.001,
  createdAt: at(index * 2),
  finishedAt: at(index * 2),
})).reverse();
const flowRuns: FlowRunSummary[] = Array.from({ length: 5 }, (_, index) => ({
  flowId: 'flw_1',
  executionId: `exe_f${index}`,
  timestamp: at(index * 12 + 1),
  status: 'success' as const,
  duration: 9,
  cost: 0.002,
})).reverse();

function givenHistory(flows = flowRuns) {
  const reads: string[] = [];
  const deps: RunHistoryDeps = {
    async scriptRuns(_userId, _range, first) {
      reads.push(`scriptRuns first=${first}`);
      return first === undefined ? scriptRuns : scriptRuns.slice(0, first);
    },
    async countScriptRuns() {
      reads.push('countScriptRuns');
      return scriptRuns.length;
    },
    async flows() {
      reads.push('flows');
      return [{ flowId: 'flw_1', scriptId: 'scr_1', trigger: { type: 'time', config: { cronExpression: '0 3 * * *' } } }];
    },
    async flowRuns() {
      reads.push('flowRuns');
      return flows;
    },
  };
  return { history: createRunHistory(deps), reads };
}

const query = (overrides: Partial<HistoryQuery> = {}): HistoryQuery => ({ limit: 10, offset: 0, ...overrides });

describe('run history: merging scripts and flows', () => {
  it('pages without a filter from the newest runs up to the page end and the count, as reading every run would', async () => {
    // Prepare
    const { history, reads } = givenHistory();
    const everyRun = [...scriptRuns.map((run) => [run.executionId, run.createdAt]), ...flowRuns.map((run) => [run.executionId, run.timestamp])]
      .sort((a, b) => b[1]!.localeCompare(a[1]!))
      .map(([id]) => id);
    // Act
    const page = await history.list('usr_1', query({ offset: 10, limit: 10 }));
    // Assess
    expect(page.executions.map((item) => item.executionId)).toEqual(everyRun.slice(10, 20));
    expect(page.total).toBe(35);
    expect(reads.sort()).toEqual(['countScriptRuns', 'flowRuns', 'flows', 'scriptRuns first=20']);
  });

  it('reads every run in the range under a filter and counts the matching ones', async () => {
    // Prepare
    const { history, reads } = givenHistory();
    // Act
    const failed = await history.list('usr_1', query({ status: 'failed', limit: 5 }));
    // Assess
    expect(failed.total).toBe(15);
    expect(failed.executions.map((item) => item.executionId)).toEqual(['exe_s29', 'exe_s27', 'exe_s25', 'exe_s23', 'exe_s21']);
    expect(reads.sort()).toEqual(['flowRuns', 'flows', 'scriptRuns first=undefined']);
  });

  it('reads no flow when no flow has executions', async () => {
    // Prepare
    const { history, reads } = givenHistory([]);
    // Act
    const page = await history.list('usr_1', query());
    // Assess
    expect(page.total).toBe(30);
    expect(reads).not.toContain('flows');
  });
});
