import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';
import { sdk } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.listVersions, async ({ input, caller }) => {
  const { script, versions } = await scriptService().listVersions(caller.userId, input.scriptId);
  return { count: versions.length, versions: versions.map((version) => sdk.version(version, script.activeVersion)) };
});
