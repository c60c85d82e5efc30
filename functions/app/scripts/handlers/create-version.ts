import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';
import { sdk } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.createVersion, async ({ input, caller }) => {
  const { script, version } = await scriptService().createVersion(caller.userId, input.scriptId, {
    code: input.code,
    message: input.commitMessage,
    dependencies: input.dependencies,
    lockfile: input.lockfile,
  });
  return sdk.version(version, script.activeVersion);
});
