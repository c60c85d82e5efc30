import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';
import { sdk } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.listScripts, async ({ caller }) => {
  const scripts = await scriptService().listOwned(caller.userId);
  return { count: scripts.length, scripts: scripts.map(sdk.listItem) };
});
