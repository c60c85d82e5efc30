import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';
import { rest } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.restCreateScript, async ({ input, caller }) => {
  const { script, apiKey } = await scriptService().create(caller.userId, input);
  return rest.created(script, apiKey);
});
