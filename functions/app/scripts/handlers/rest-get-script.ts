import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';
import { rest } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.restGetScript, async ({ input, caller }) => {
  const service = scriptService();
  const script = await service.readable(caller.userId, input.scriptId);
  return rest.script(script, await service.dependenciesOf(script));
});
