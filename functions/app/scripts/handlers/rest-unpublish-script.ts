import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';

export const handler = httpHandler(scriptRoutes.restUnpublishScript, async ({ input, caller }) => {
  const script = await scriptService().unpublish(caller.userId, input.scriptId);
  return { id: script.scriptId, status: script.status };
});
