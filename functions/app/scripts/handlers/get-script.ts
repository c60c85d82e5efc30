import { httpHandler } from '#platform/http.js';
import { statsOf } from '#functions/scripts/views/insights.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';
import { sdk } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.getScript, async ({ input, caller }) => {
  const service = scriptService();
  const script = await service.readable(caller.userId, input.scriptId);
  return sdk.script(script, statsOf(script), await service.dependenciesOf(script));
});
