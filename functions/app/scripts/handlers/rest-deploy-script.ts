import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';
import { rest } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.restDeployScript, async ({ input, caller }) => {
  const { script, version } = await scriptService().deploy(caller.userId, input.scriptId, { versionId: input.versionId });
  return rest.deployment(script, version);
});
