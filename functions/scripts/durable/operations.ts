// Operating runs through the API: cancel a durable run, re-run one (from a step, reusing the stored results of the
// steps before it), replay a script's runs in bulk. Only the run's user may operate it: others get NOT_FOUND. A
// re-run of an llm flow's run takes the steps it reuses from here too (`reuseSteps`).
import type { Clock } from '#platform/clock.js';
import { ConflictError, NotFoundError, ValidationError } from '#platform/errors.js';
import type { Execution, ExecutionStatus } from '../model.js';
import type { ExecutionStore } from '../runs/execution-store.js';
import type { AdmittedRun, ScriptRunner } from '../runs/runner.js';
import type { ScriptAccess } from '../runs/script-access.js';
import type { DurableCallbacks } from '../../durable/api.js';
import type { DurableEngine } from '../../durable/api.js';
import type { Journal, JournalEntry, RunItem } from '../../durable/api.js';
import { scriptRunner } from './script-runs.js';
import type { WaitOutcome } from '../../durable/api.js';

/** At most this many runs per replay call. */
export const maxReplayRuns = 100;
const ended: ExecutionStatus[] = ['success', 'error', 'timeout', 'cancelled'];
/** Replay's status filter takes the stored names and the SDK's. */
const statusAliases: Record<string, ExecutionStatus[]> = { completed: ['success'], failed: ['error', 'timeout'] };

export interface ReplayFilter {
  scriptId: string;
  status?: string;
  from?: string;
  to?: string;
}

export function createRunOperations(deps: {
  engine: DurableEngine;
  journal: Journal;
  callbacks: DurableCallbacks;
  executions: Pick<ExecutionStore, 'get' | 'list' | 'putRunning'>;
  runner: Pick<ScriptRunner, 'admit'>;
  /** Replay names a script: the caller must be one who may run it (another user's script is NOT_FOUND). */
  access: Pick<ScriptAccess, 'runnable'>;
  /** Announces a cancelled run to whoever waits on it (a direct flow's execution). */
  ended: (execution: Execution) => Promise<void>;
  clock: Clock;
}) {
  const { engine, journal, executions, clock } = deps;

  async function owned(userId: string, executionId: string): Promise<Execution> {
    const execution = await executions.get(executionId, true, false);
    if (!execution || execution.userId !== userId) throw new NotFoundError('executionId', executionId, 'execution');
    return execution;
  }

  /** The data the run started with: kept on its record, or (durable runs past the record's bound) in its journal. */
  async function inputOf(execution: Execution): Promise<unknown> {
    if (execution.inputJson !== undefined) return JSON.parse(execution.inputJson);
    const run = execution.durable ? await journal.getRun(execution.executionId) : undefined;
    if (run?.runner === scriptRunner) return (JSON.parse(run.payload) as AdmittedRun).data;
    throw new ConflictError(`execution ${execution.executionId} did not keep its input: it cannot be re-run`, { executionId: execution.executionId });
  }

  /**
   * The ended steps a re-run from `fromStep` reuses: those before it, but for waits whose kind refuses reuse (an
   * approval its approver did not let re-runs reuse), which the re-run meets again.
   */
  async function stepsBefore(executionId: string, fromStep: string): Promise<JournalEntry[]> {
    const entries = await journal.outline(executionId);
    const index = entries.findIndex((entry) => entry.name === fromStep);
    if (index < 0) {
      const names = entries.map((entry) => entry.name);
      const listed = names.length > 20 ? `${names.slice(0, 20).join(', ')}, ... (${names.length} in all)` : names.join(', ');
      throw new ValidationError('fromStep', fromStep, `execution ${executionId} has no step named ${fromStep}; its steps: ${listed || 'none'}`, {
        steps: names.slice(0, 100),
      });
    }
    const ended = await journal.withResults(
      executionId,
      entries.slice(0, index).filter((entry) => entry.status === 'succeeded' || entry.status === 'failed'),
    );
    return ended.filter((entry) => engine.reusable(entry));
  }

  /** Copies the entries into the run `executionId`; answers what they add to its tallies. */
  async function copySteps(entries: JournalEntry[], executionId: string): Promise<Pick<RunItem, 'stepCount' | 'journalBytes'>> {
    let journalBytes = 0;
    for (const entry of entries) {
      // A result in the blob store is shared by its key, not copied into the item.
      await journal.putEntry({ ...entry, executionId, kept: true, ...(entry.resultKey && { result: undefined }) });
      journalBytes += (entry.resultBytes ?? Buffer.byteLength(entry.result ?? '')) + Buffer.byteLength(entry.error?.message ?? '');
    }
    return { stepCount: entries.length, journalBytes };
  }

  /** Admits a new run of the same script with the same data; its first invocation is started through the bus. */
  async function startAgain(
    execution: Execution,
    reuse: (newExecutionId: string) => Promise<Pick<RunItem, 'stepCount' | 'journalBytes'>>,
    fromStep?: string,
  ): Promise<string> {
    const admitted = await deps.runner.admit(
      {
        scriptId: execution.scriptId,
        userId: execution.userId,
        data: await inputOf(execution),
        trigger: { type: execution.trigger.type, source: `rerun:${execution.executionId}` },
        origin: { executionId: execution.executionId, ...(fromStep !== undefined && { fromStep }) },
      },
      { flowControl: false },
    );
    const { running } = admitted;
    await executions.putRunning(running);
    const tallies = await reuse(running.executionId);
    await engine.begin({
      ...tallies,
      executionId: running.executionId,
      userId: running.userId,
      scriptId: running.scriptId,
      runner: scriptRunner,
      payload: JSON.stringify(admitted),
      state: 'queued',
    });
    return running.executionId;
  }

  return {
    async cancel(userId: string, executionId: string): Promise<Execution> {
      const execution = await owned(userId, executionId);
      if (!execution.durable) throw new ConflictError(`execution ${executionId} is not a durable run: only durable runs can be cancelled`, { executionId });
      if (!(await engine.cancel(executionId)))
        throw new ConflictError(`execution ${executionId} is ${execution.status}, not running or waiting`, { executionId });
      const { runningUntil: _until, ...kept } = execution;
      const cancelled: Execution = {
        ...kept,
        status: 'cancelled',
        error: { code: 'CANCELLED', message: 'the run was cancelled by its user' },
        finishedAt: clock.nowIso(),
      };
      await executions.putRunning(cancelled);
      await deps.ended(cancelled);
      return (await executions.get(executionId, true)) ?? cancelled;
    },

    /** A new execution; with `fromStep`, the steps before it keep their stored results and do not run again. */
    async rerun(userId: string, executionId: string, fromStep?: string): Promise<string> {
      const execution = await owned(userId, executionId);
      if (fromStep === undefined) return startAgain(execution, async () => ({}));
      const reused = await stepsBefore(executionId, fromStep);
      return startAgain(execution, (newExecutionId) => copySteps(reused, newExecutionId), fromStep);
    },

    /**
     * Gives the run `toExecutionId` (not started yet) the ended steps of run `fromExecutionId` before `fromStep`, as
     * a re-run of an in-process durable run (an llm flow's) starts; VALIDATION_ERROR when there is no such step.
     */
    reuseSteps: async (fromExecutionId: string, toExecutionId: string, fromStep: string): Promise<void> =>
      void (await copySteps(await stepsBefore(fromExecutionId, fromStep), toExecutionId)),

    /** Re-runs the caller's ended runs of a script that match, newest first, at most maxReplayRuns. */
    async replay(userId: string, filter: ReplayFilter): Promise<string[]> {
      await deps.access.runnable(userId, filter.scriptId);
      const statuses = filter.status ? (statusAliases[filter.status] ?? [filter.status as ExecutionStatus]) : ended;
      const runs = (await executions.list({ scriptUser: `${filter.scriptId}#${userId}`, startDate: filter.from, endDate: filter.to }))
        .filter((execution) => ended.includes(execution.status) && statuses.includes(execution.status))
        .slice(0, maxReplayRuns);
      const started: string[] = [];
      for (const execution of runs) started.push(await startAgain(execution, async () => ({})));
      return started;
    },

    async completeCallback(userId: string, executionId: string, callbackId: string, outcome: WaitOutcome): Promise<void> {
      await owned(userId, executionId);
      await deps.callbacks.complete(executionId, callbackId, outcome);
    },
  };
}

export type RunOperations = ReturnType<typeof createRunOperations>;
