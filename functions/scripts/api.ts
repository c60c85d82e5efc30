// The scripts area's facade: what other areas may ask of scripts, typed by the area's own model. Every run goes
// through the area's runner, so its limits, budgets and records hold whoever triggers it. Built from the area's
// services and stores by its composition; another area's composition hands it to that area's own port.
import type { Clock } from '#platform/clock.js';
import { AppError } from '#platform/errors.js';
import { type Execution, type Installation, type RunSummary, settledRun } from './model.js';
import type { ExecutionStore } from './runs/execution-store.js';
import type { RunStore } from './runs/run-store.js';
import type { FlowControlGate } from './runs/flow-control.js';
import type { AdmittedRun, ExecuteRequest, ExecutionResult, ScriptRunner } from './runs/runner.js';
import type { ApiRun, LongRuns } from './runs/long-runs.js';
import type { ScriptAccess } from './runs/script-access.js';
import type { ScriptService } from './service.js';
import type { ScriptStore } from './store.js';
import type { DurableEngine } from '../durable/api.js';
import { type DurableContext, runDurably } from '../durable/api.js';
import type { RunOperations } from './durable/operations.js';

export type { ExecuteRequest, ExecutionResult } from './runs/runner.js';
export { cancelledCode, lineageOf, linesByInvocation, type FlowRunEnd, type RunOrigin, type StoredFlowRun } from './runs/run-record.js';

export interface ScriptsApiDeps {
  runner: ScriptRunner;
  flowControl: FlowControlGate;
  longRuns: LongRuns;
  access: ScriptAccess;
  service: ScriptService;
  engine: DurableEngine;
  operations: RunOperations;
  store: ScriptStore;
  executions: ExecutionStore;
  records: RunStore;
  clock: Clock;
}

export type ScriptsApi = ReturnType<typeof createScriptsApi>;

export function createScriptsApi({ runner, longRuns, access, service, engine, operations, store, executions, records, clock, flowControl }: ScriptsApiDeps) {
  return {
    /** Flows' runs in the one run record: as each starts, ends or is cancelled, and those their rings kept before it. */
    flowRunRecords: { put: records.putFlowRun, end: records.endFlowRun, putMigrated: records.putMigrated },

    runScript: (request: ExecuteRequest): Promise<ExecutionResult> => runner.execute(request),
    /** A one-shot of the run queues (flow-control.ts): a throttle window opened, or a queued run's queueTtl passed. */
    wakeRunQueue: (detail: Record<string, unknown>): Promise<void> => flowControl.wake(detail),
    /** "Admit this run now": a queued run whose window closed passes its throttle and starts, once. */
    admitQueuedRun: (executionId: string) => flowControl.admitNow(executionId),

    /** Who owns the script, its name and whether it has an active version; undefined for an unknown script. */
    async describeScript(scriptId: string): Promise<{ ownerId: string; name: string; deployed: boolean } | undefined> {
      const script = await store.get(scriptId);
      return script && { ownerId: script.ownerId, name: script.name, deployed: script.activeVersion !== null };
    },

    /** Whether the user may run the script: the area's one access rule (its owner, or a user who installed it). */
    async mayRun(userId: string, scriptId: string): Promise<boolean> {
      try {
        await access.runnable(userId, scriptId);
        return true;
      } catch (error) {
        if (error instanceof AppError && (error.code === 'NOT_FOUND' || error.code === 'FORBIDDEN')) return false;
        throw error;
      }
    },

    /** The deployed scripts the user may run (own and installed), with what an MCP tool of each shows. */
    async runnableScripts(
      userId: string,
    ): Promise<{ scriptId: string; name: string; description: string; ownerId: string; inputSchema?: Record<string, unknown> }[]> {
      const installed = await store.listUserInstallations(userId);
      const scripts = await Promise.all(installed.map((installation) => store.get(installation.scriptId)));
      return scripts
        .filter((script) => script !== undefined && script.activeVersion !== null)
        .map((script) => ({
          scriptId: script!.scriptId,
          name: script!.name,
          description: script!.description,
          ownerId: script!.ownerId,
          ...(script!.config.inputSchema && { inputSchema: script!.config.inputSchema }),
        }));
    },

    /** A run answered within the API's bound, or its record while it goes on (the long-run rule of executeScript). */
    runWithinBound: (request: ExecuteRequest): Promise<ApiRun> => longRuns.execute(request),

    /** The background half of runWithinBound, for the function's own asynchronous invocation. */
    runJob: (job: AdmittedRun) => longRuns.runJob(job),

    async ownedScripts(userId: string) {
      return (await store.listByOwner(userId)).map(({ scriptId, name, description }) => ({ scriptId, name, description }));
    },

    /** What a list shows of the user's runs in the range (with `first`, the newest that many), a run past its deadline shown as it settles. */
    async scriptRuns(userId: string, range: { startDate?: string; endDate?: string }, first?: number): Promise<RunSummary[]> {
      const now = clock.nowIso();
      return (await executions.listSummaries({ userId, startDate: range.startDate, endDate: range.endDate }, first)).map((run) => settledRun(run, now));
    },

    /** How many runs the user has in the range. */
    countScriptRuns: (userId: string, range: { startDate?: string; endDate?: string }): Promise<number> =>
      executions.count({ userId, startDate: range.startDate, endDate: range.endDate }),

    /** One run by id (without its steps), a run past its deadline shown as it settles; undefined for an unknown run. */
    async scriptRun(executionId: string): Promise<Execution | undefined> {
      const run = await executions.get(executionId, true, false);
      return run && settledRun(run, clock.nowIso());
    },

    /** Each id's name and whether the user may install it (own or listed), `null` names for unknown ids. */
    async scriptAvailability(userId: string, ids: string[]): Promise<{ id: string; name: string | null; available: boolean }[]> {
      return Promise.all(
        ids.map(async (id) => {
          const script = await store.get(id);
          return { id, name: script?.name ?? null, available: Boolean(script && (script.ownerId === userId || script.listed)) };
        }),
      );
    },

    installScript: (userId: string, scriptId: string, customization?: Installation['customization']) => service.install(userId, scriptId, customization),

    uninstallScript: (userId: string, scriptId: string) => service.uninstall(userId, scriptId),

    /** Completes a durable run's wait (an event it waited for arrived) and resumes the run; false when it no longer waits. */
    resolveWait: (executionId: string, name: string, outcome: { result: unknown } | { error: { code: string; message: string } }) =>
      engine.resolveWait(executionId, name, outcome),

    /**
     * Durable runs of platform code in this process (an llm flow's agent loop) under the runner name `runner`: the same
     * journal and replay rules as scripts' steps. The resumer declared for `runner` continues a run once its wait ended.
     */
    inProcessDurableRuns(runner: string) {
      return {
        async run<T>(
          run: { executionId: string; userId: string; flowId: string; payload: string; runningUntil: string },
          invocation: number,
          body: (context: DurableContext) => Promise<T>,
        ): Promise<{ suspended: true } | { suspended: false; value: T }> {
          // No script of its own: the approval wait kind then takes the run's user as the owner who approves.
          const owner = { executionId: run.executionId, userId: run.userId, scriptId: '', flowId: run.flowId };
          if (invocation === 1) await engine.begin({ ...owner, runner, payload: run.payload, state: 'running' });
          // Past its lease an invocation that never reported back (its process died) is continued by a new one.
          await engine.watch(owner, invocation, run.runningUntil);
          return runDurably(engine, owner, invocation, body);
        },
        /** Stops a run that is running or waiting; false for a run that ended, or one that is not durable. */
        cancel: (executionId: string): Promise<boolean> => engine.cancel(executionId),
        /** A re-run from `fromStep` starts with the steps before it (VALIDATION_ERROR when the run has no such step). */
        reuseSteps: (fromExecutionId: string, toExecutionId: string, fromStep: string): Promise<void> =>
          operations.reuseSteps(fromExecutionId, toExecutionId, fromStep),
      };
    },
  };
}
