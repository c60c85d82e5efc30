// The scripts area's facade: what other areas may ask of scripts, typed by the area's own model. Every run goes
// through the area's runner, so its limits, budgets and records hold whoever triggers it.
import { systemClock } from '#platform/clock.js';
import { AppError } from '#platform/errors.js';
import { type Execution, type Installation, type RunSummary, settledRun } from './model.js';
import { createExecutionStore } from './runs/execution-store.js';
import type { ExecuteRequest, ExecutionResult } from './runs/runner.js';
import { createScriptStore } from './store.js';
import { type DurableContext, runDurably } from './durable/in-process.js';
import { durableEngine, runOperations, scriptAccess, scriptRunner, scriptService } from '#functions/app/scripts/wiring.js';

export type { ExecuteRequest, ExecutionResult } from './runs/runner.js';

export const runScript = (request: ExecuteRequest): Promise<ExecutionResult> => scriptRunner().execute(request);

/** Who owns the script and whether it has an active version; undefined for an unknown script. */
export async function describeScript(scriptId: string): Promise<{ ownerId: string; deployed: boolean } | undefined> {
  const script = await createScriptStore().get(scriptId);
  return script && { ownerId: script.ownerId, deployed: script.activeVersion !== null };
}

/** Whether the user may run the script: the area's one access rule (its owner, or a user who installed it). */
export async function mayRun(userId: string, scriptId: string): Promise<boolean> {
  try {
    await scriptAccess().runnable(userId, scriptId);
    return true;
  } catch (error) {
    if (error instanceof AppError && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN')) return false;
    throw error;
  }
}

export async function ownedScripts(userId: string) {
  return (await createScriptStore().listByOwner(userId)).map(({ scriptId, name, description }) => ({ scriptId, name, description }));
}

/** What a list shows of the user's runs in the range (with `first`, the newest that many), a run past its deadline shown as it settles. */
export async function scriptRuns(userId: string, range: { startDate?: string; endDate?: string }, first?: number): Promise<RunSummary[]> {
  const now = systemClock.nowIso();
  return (await createExecutionStore().listSummaries({ userId, startDate: range.startDate, endDate: range.endDate }, first)).map((run) => settledRun(run, now));
}

/** How many runs the user has in the range. */
export const countScriptRuns = (userId: string, range: { startDate?: string; endDate?: string }): Promise<number> =>
  createExecutionStore().count({ userId, startDate: range.startDate, endDate: range.endDate });

/** One run by id, a run past its deadline shown as it settles; undefined for an unknown run. */
export async function scriptRun(executionId: string): Promise<Execution | undefined> {
  const run = await createExecutionStore().get(executionId, true);
  return run && settledRun(run, systemClock.nowIso());
}

/** Each id's name and whether the user may install it (own or listed), `null` names for unknown ids. */
export async function scriptAvailability(userId: string, ids: string[]): Promise<{ id: string; name: string | null; available: boolean }[]> {
  const store = createScriptStore();
  return Promise.all(
    ids.map(async (id) => {
      const script = await store.get(id);
      return { id, name: script?.name ?? null, available: Boolean(script && (script.ownerId === userId || script.listed)) };
    }),
  );
}

export const installScript = (userId: string, scriptId: string, customization?: Installation['customization']) =>
  scriptService().install(userId, scriptId, customization);

export const uninstallScript = (userId: string, scriptId: string) => scriptService().uninstall(userId, scriptId);

/** Completes a durable run's wait (an event it waited for arrived) and resumes the run; false when it no longer waits. */
export const resolveWait = (executionId: string, name: string, outcome: { result: unknown } | { error: { code: string; message: string } }) =>
  durableEngine().resolveWait(executionId, name, outcome);

/**
 * Durable runs of platform code in this process (an llm flow's agent loop) under the runner name `runner`: the same
 * journal and replay rules as scripts' steps. `resume` continues a run in a new invocation once its wait ended.
 */
export function inProcessDurableRuns(runner: string, resume: (payload: string, invocation: number) => Promise<void>) {
  durableEngine().registerResumer(runner, (run) => resume(run.payload, run.invocation));
  return {
    async run<T>(
      run: { executionId: string; userId: string; flowId: string; payload: string; runningUntil: string },
      invocation: number,
      body: (context: DurableContext) => Promise<T>,
    ): Promise<{ suspended: true } | { suspended: false; value: T }> {
      const engine = durableEngine();
      // No script of its own: the approval wait kind then takes the run's user as the owner who approves.
      const owner = { executionId: run.executionId, userId: run.userId, scriptId: '', flowId: run.flowId };
      if (invocation === 1) await engine.begin({ ...owner, runner, payload: run.payload, state: 'running' });
      // Past its lease an invocation that never reported back (its process died) is continued by a new one.
      await engine.watch(owner, invocation, run.runningUntil);
      return runDurably(engine, owner, invocation, body);
    },
    /** Stops a run that is running or waiting; false for a run that ended, or one that is not durable. */
    cancel: (executionId: string): Promise<boolean> => durableEngine().cancel(executionId),
    /** A re-run from `fromStep` starts with the steps before it (VALIDATION_ERROR when the run has no such step). */
    reuseSteps: (fromExecutionId: string, toExecutionId: string, fromStep: string): Promise<void> =>
      runOperations().reuseSteps(fromExecutionId, toExecutionId, fromStep),
  };
}
