import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptAuthoring, scriptService } from '../wiring.js';
import { sdk } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.createScript, async ({ input, caller }) => {
  const { script, installation, apiKey } = await scriptService().create(caller.userId, input);
  const warnings = await scriptAuthoring().warnings(script, input.code);
  return { ...sdk.created(script, installation, apiKey), ...(warnings.length > 0 && { warnings }) };
});
