import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptAuthoring, scriptService } from '../wiring.js';
import { sdk } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.deployScript, async ({ input, caller }) => {
  const { script, version } = await scriptService().deploy(caller.userId, input.scriptId, { version: input.version });
  const warnings = await scriptAuthoring().warnings(script, version);
  return { ...sdk.deployment(script, version), ...(warnings.length > 0 && { warnings }) };
});
