// Durable runs of scripts: the runner's hooks (journal in, checkpoints out, suspended or finished), the resumer that
// continues a script run in a new invocation of the same execution, and the failed-run event.
import type { Clock } from '#platform/clock.js';
import { AppError } from '#platform/errors.js';
import { executionFailedType } from '#platform/event-types.js';
import type { EventPublisher } from '#platform/ports.js';
import { type Execution, durableFlowRunEndedType } from '../model.js';
import type { ExecutionStore } from '../runs/execution-store.js';
import { runGraceMs } from '../runs/run-grant.js';
import type { AdmittedRun, DurableRunHooks, ScriptRunner } from '../runs/runner.js';
import type { DurableEngine } from '../../durable/api.js';
import type { RunItem } from '../../durable/api.js';

/** The runner name of script runs in the journal's run items. */
export const scriptRunner = 'script';

const invocation = (run: RunItem) => run.invocation;

const ownerOf = (admitted: AdmittedRun) => ({
  executionId: admitted.running.executionId,
  userId: admitted.running.userId,
  scriptId: admitted.running.scriptId,
  ...(admitted.trigger.type === 'flow' && admitted.trigger.source && { flowId: admitted.trigger.source }),
});

export function createDurableScriptRuns(deps: {
  engine: DurableEngine;
  executions: Pick<ExecutionStore, 'get' | 'putRunning'>;
  runner: () => Pick<ScriptRunner, 'runAdmitted'>;
  bus: EventPublisher;
  clock: Clock;
}) {
  const { engine, clock } = deps;

  const hooks: DurableRunHooks = {
    async start(admitted) {
      const owner = ownerOf(admitted);
      if (admitted.resumed === undefined) {
        // A fresh run's journal is empty: nothing to read (re-runs that reuse steps start through the queue, as resumed).
        await Promise.all([
          engine.begin({ ...owner, runner: scriptRunner, payload: JSON.stringify(admitted), state: 'running' }),
          engine.watch(owner, 1, admitted.running.runningUntil!),
        ]);
        return { journal: { entries: {} }, invocation: 1 };
      }
      const { invocation } = admitted.resumed;
      const [journal] = await Promise.all([engine.invocationJournal(owner.executionId), engine.watch(owner, invocation, admitted.running.runningUntil!)]);
      // A null-prototype object by name on the wire (each name an own key, `__proto__` too); the wrappers read own keys only.
      return { journal, invocation };
    },
    checkpoint: (admitted, method, params) => engine.checkpoint(ownerOf(admitted), method, params),
    suspended: (admitted, invocation) => engine.suspended(admitted.running.executionId, invocation),
    finished: (admitted, invocation) => engine.finished(admitted.running.executionId, invocation),
    boundExceeded: (admitted) => engine.failure(admitted.running.executionId),
    async failed(execution: Execution) {
      // A run started by a failure event does not announce its own failure: one failing alert would feed itself.
      if (execution.trigger.event === executionFailedType) return;
      await deps.bus.publish({
        type: executionFailedType,
        source: 'scripts',
        userId: execution.userId,
        timestamp: execution.finishedAt ?? clock.nowIso(),
        content: { text: `Execution ${execution.executionId} of script ${execution.scriptId} failed: ${execution.error?.message ?? execution.status}` },
        data: {
          executionId: execution.executionId,
          scriptId: execution.scriptId,
          ...(execution.trigger.type === 'flow' && execution.trigger.source && { flowId: execution.trigger.source }),
          error: execution.error,
        },
      });
    },
    async ended(execution: Execution) {
      // A direct flow recorded its execution as waiting on this run: it settles from the run's record.
      if (execution.trigger.type !== 'flow' || !execution.trigger.source) return;
      await deps.bus.publish({
        type: durableFlowRunEndedType,
        source: 'scripts',
        userId: execution.userId,
        flowId: execution.trigger.source,
        executionId: execution.executionId,
      });
    },
  };

  /** A new invocation of the run's execution: what the earlier ones took is added to what this one takes. */
  async function resume(run: RunItem): Promise<void> {
    const stored = JSON.parse(run.payload) as AdmittedRun;
    const record = await deps.executions.get(run.executionId, true, false);
    if (!record) return;
    const now = clock.now();
    const running: Execution = {
      ...stored.running,
      runningUntil: new Date(now + stored.timeoutMs + runGraceMs).toISOString(),
    };
    await deps.executions.putRunning({ ...record, status: 'running', finishedAt: null, runningUntil: running.runningUntil });
    try {
      await deps.runner().runAdmitted({
        ...stored,
        running,
        resumed: {
          invocation: run.invocation,
          duration: record.duration,
          cost: record.cost,
          resourceCalls: record.resourceCalls,
          memoryUsed: record.memoryUsed,
          logBytes: record.logBytes,
        },
      });
    } catch (error) {
      if (!(error instanceof AppError && error.code === 'CONCURRENCY_LIMIT')) throw error;
      // All of the script's slots are taken: the run waits again and asks after the refusal's Retry-After.
      await deps.executions.putRunning(record);
      await engine.retryLater(run, invocation(run), Number(error.headers['Retry-After'] ?? 1));
    }
  }

  engine.registerResumer(scriptRunner, resume);
  return hooks;
}
