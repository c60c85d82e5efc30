import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';

export const handler = httpHandler(scriptRoutes.unpublishScript, async ({ input, caller }) => {
  await scriptService().unpublish(caller.userId, input.scriptId);
  return { scriptId: input.scriptId, unpublished: true };
});
