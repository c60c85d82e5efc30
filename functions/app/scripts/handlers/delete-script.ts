import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';

export const handler = httpHandler(scriptRoutes.deleteScript, async ({ input, caller }) => {
  const removed = await scriptService().remove(caller.userId, input.scriptId);
  return { deleted: true, scriptId: input.scriptId, hardDeleted: true, ...removed };
});
