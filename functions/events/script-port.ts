// The production ScriptPort: the scripts area's store says who owns a script and whether a version of it
// is deployed; its runner runs it, records the execution and applies the script's limits.
import { scriptRunner } from '../scripts/runner.js';
import { createScriptStore } from '../scripts/store.js';
import type { ScriptPort } from './ports.js';

let port: ScriptPort | undefined;

export function scriptPort(): ScriptPort {
  if (port) return port;
  const store = createScriptStore();
  port = {
    async describe(scriptId) {
      const script = await store.get(scriptId);
      return script && { userId: script.ownerId, deployed: script.activeVersion !== null };
    },
    async run(request) {
      const { execution } = await scriptRunner().execute(request);
      return { executionId: execution.executionId, status: execution.status };
    },
  };
  return port;
}
