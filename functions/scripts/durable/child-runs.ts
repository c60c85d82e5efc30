// Child runs (`context.invoke`): a durable run starts a run of another script the caller may run and waits on it as
// on any wait (no slot held meanwhile); the child's end settles that wait directly, its result or its error (code
// kept). A run that ends or is cancelled cancels the children it still waits on, and they theirs.
import * as z from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '#platform/errors.js';
import type { Execution } from '../model.js';
import type { ExecutionStore } from '../runs/execution-store.js';
import type { AdmittedRun, ScriptRunner } from '../runs/runner.js';
import type { ScriptStore } from '../store.js';
import { type DurableEngine, DurableError, type WaitKind, type WaitOutcome } from '../../durable/api.js';
import { Duration, maxWaitSeconds } from '../../durable/schemas.js';

/** Child runs nest at most this deep below a top-level run. */
export const maxChildDepth = 10;

const InvokeArgs = z.strictObject({ script: z.string().min(1).max(200), data: z.unknown().optional(), timeout: Duration.optional() });

/** What the parent's wait ends with when the child ended `execution` (with its full `output`). */
function outcomeOf(execution: Execution, output: unknown): WaitOutcome {
  if (execution.status === 'success') return { result: output ?? null };
  return { error: execution.error ?? { code: execution.status.toUpperCase(), message: `child run ${execution.executionId} ended ${execution.status}` } };
}

/** What a child run needs of the scripts area: admitting and starting a run, its record, the caller's scripts, cancelling. */
export interface ChildRunPorts {
  runner: Pick<ScriptRunner, 'admit'>;
  /** Starts the admitted child in the background (its record written first). */
  start: (admitted: AdmittedRun) => Promise<void>;
  executions: Pick<ExecutionStore, 'get' | 'remove' | 'releaseDailyRun'>;
  scripts: Pick<ScriptStore, 'listByOwner'>;
  cancel: (userId: string, executionId: string) => Promise<unknown>;
}

/**
 * The `invoke` wait kind, declared in the engine's registry. Its ports come on first use: they include the runner,
 * which is built with the engine (functions/app/durable-engine.ts).
 */
export function invokeWaitKind(ports: () => Promise<ChildRunPorts>, engine: () => DurableEngine): WaitKind {
  /** A script id, or the name of one of the user's scripts; an installed script is named by its id. */
  async function scriptIdOf(scripts: ChildRunPorts['scripts'], userId: string, script: string): Promise<string> {
    if (script.startsWith('scr_')) return script;
    const named = (await scripts.listByOwner(userId)).find((candidate) => candidate.name === script);
    if (!named) throw new NotFoundError('script', script, 'script');
    return named.scriptId;
  }

  return {
    type: 'invoke',
    onTimeout: 'timeout',
    async open(owner, name, args) {
      const parsed = InvokeArgs.safeParse(args);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        throw new ValidationError(issue.path.join('.') || 'args', args, issue.message);
      }
      const { script, data, timeout } = parsed.data;
      const deps = await ports();
      const parent = await deps.executions.get(owner.executionId, true, false);
      const depth = (parent?.depth ?? 0) + 1;
      if (depth > maxChildDepth) throw new ValidationError('script', script, `child runs nest at most ${maxChildDepth} deep`);
      const admitted = await deps.runner.admit({
        scriptId: await scriptIdOf(deps.scripts, owner.userId, script),
        userId: owner.userId,
        data: data ?? null,
        trigger: { type: 'invoke', source: owner.executionId },
        parent: { parentExecutionId: owner.executionId, rootExecutionId: parent?.rootExecutionId ?? owner.executionId, parentWait: name, depth },
      });
      const childExecutionId = admitted.running.executionId;
      return {
        timeoutSeconds: timeout ?? maxWaitSeconds,
        fields: { childExecutionId },
        reply: { childExecutionId },
        async begin() {
          try {
            await deps.start(admitted);
          } catch {
            await engine().resolveWait(owner.executionId, name, {
              error: { code: 'INTERNAL_ERROR', message: `child run ${childExecutionId} could not start` },
            });
          }
        },
        abandon: async () => void (await Promise.all([deps.executions.remove(childExecutionId), deps.executions.releaseDailyRun(admitted.dailyCounter)])),
      };
    },
    // A child's result belongs to its run: a re-run starts the child again.
    reusable: () => false,
    async close(wait) {
      const child = wait.fields?.childExecutionId;
      if (typeof child !== 'string' || !wait.userId) return;
      try {
        await (await ports()).cancel(wait.userId, child);
      } catch (error) {
        // Ended already, or not a durable run (it ends within its timeout by itself).
        if (!(error instanceof ConflictError || error instanceof NotFoundError)) throw error;
      }
    },
  };
}

/** A child run ended: its parent's wait ends with its result or error (an unstorable result as that error). */
export function childRunEnded(engine: DurableEngine) {
  return async (execution: Execution, output: unknown): Promise<void> => {
    if (!execution.parentExecutionId || !execution.parentWait) return;
    const outcome = outcomeOf(execution, output ?? execution.output);
    try {
      await engine.resolveWait(execution.parentExecutionId, execution.parentWait, outcome);
    } catch (error) {
      if (!(error instanceof DurableError)) throw error;
      await engine.resolveWait(execution.parentExecutionId, execution.parentWait, {
        error: { code: error.code, message: `child run ${execution.executionId}: ${error.message}` },
      });
    }
  };
}
