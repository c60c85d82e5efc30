import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';
import { versionCodeView } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.getScriptCode, async ({ input, caller }) => {
  const { script, version, code } = await scriptService().versionCode(caller.userId, input.scriptId, input.version);
  return versionCodeView(script, version, code);
});
