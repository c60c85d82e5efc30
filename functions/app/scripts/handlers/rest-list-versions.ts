import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';
import { rest } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.restListVersions, async ({ input, caller }) => {
  const { versions } = await scriptService().listVersions(caller.userId, input.scriptId);
  return { versions: versions.map(rest.version), count: versions.length };
});
