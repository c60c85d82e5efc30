import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';
import { installationView } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.installScript, async ({ input, caller }) =>
  installationView(await scriptService().install(caller.userId, input.scriptId)),
);
