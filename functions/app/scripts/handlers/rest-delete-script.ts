import { httpHandler, Reply } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';

export const handler = httpHandler(scriptRoutes.restDeleteScript, async ({ input, caller }) => {
  await scriptService().remove(caller.userId, input.scriptId);
  return Reply.message(`script ${input.scriptId} deleted`);
});
