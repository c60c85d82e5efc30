import { Reply, httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';
import { rest } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.restUpdateScript, async ({ input, caller }) => {
  const { script, version } = await scriptService().update(caller.userId, input);
  if (!version) return rest.script(script);
  // Runs keep using the deployed version until this one is deployed: say so rather than surprise the caller.
  const message = `the code is saved as version ${version.semver} (versionId ${version.versionId}) and is not deployed: POST /api/sdk/v1/scripts/${script.scriptId}/deploy to run it`;
  return new Reply(200, { success: true, data: rest.script(script), message });
});
