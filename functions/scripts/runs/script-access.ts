// Who may run a script, the one rule every caller applies (the runner for every trigger, flows naming a script,
// resource calls of a run): its owner, or a user who installed it. A marketplace script not installed is FORBIDDEN
// (the caller may install it); any other script is NOT_FOUND, so another user's private script is never revealed.
import { ForbiddenError, NotFoundError } from '#platform/errors.js';
import type { Installation, Script } from '../model.js';
import type { ScriptStore } from '../store.js';

/** The script if `userId` may run it, from what the caller read already; otherwise the refusal. */
export function runnableScript(scriptId: string, userId: string, script: Script | undefined, installation: Installation | undefined): Script {
  if (!script) throw new NotFoundError('scriptId', scriptId, 'script');
  if (script.ownerId === userId || installation) return script;
  if (script.listed) throw new ForbiddenError(`install script ${scriptId} before running it`, { scriptId });
  throw new NotFoundError('scriptId', scriptId, 'script');
}

export function createScriptAccess(store: Pick<ScriptStore, 'get' | 'getInstallation'>) {
  return {
    /** The script if `userId` may run it; FORBIDDEN or NOT_FOUND otherwise. */
    async runnable(userId: string, scriptId: string): Promise<Script> {
      const [script, installation] = await Promise.all([store.get(scriptId), store.getInstallation(scriptId, userId)]);
      return runnableScript(scriptId, userId, script, installation);
    },
  };
}

export type ScriptAccess = ReturnType<typeof createScriptAccess>;
