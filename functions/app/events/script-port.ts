// The events area's ScriptPort over the scripts area's facade, loaded on the first call that needs a script: a handler
// that only reads subscriptions or triggers never loads the scripts' composition.
import type { Platform } from '#functions/app/platform.js';
import type { ScriptPort } from '#functions/events/ports.js';

const scriptsApiOf = async (platform: Platform) => (await import('#functions/app/scripts/wiring.js')).scriptsApi(platform);

/** The scripts area's facade says who owns a script and whether it is deployed, and runs it with its limits. */
export const scriptPort = (platform: Platform): ScriptPort => ({
  async describe(scriptId) {
    const script = await (await scriptsApiOf(platform)).describeScript(scriptId);
    return script && { userId: script.ownerId, deployed: script.deployed };
  },
  async run(request) {
    const { execution } = await (await scriptsApiOf(platform)).runScript(request);
    return { executionId: execution.executionId, status: execution.status };
  },
  wakeRunQueue: async (detail) => (await scriptsApiOf(platform)).wakeRunQueue(detail),
});
