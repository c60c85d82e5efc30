import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptRegistries } from '../wiring.js';

export const handler = httpHandler(scriptRoutes.clearPackageRegistry, async ({ input, caller }) => ({
  ecosystem: input.ecosystem,
  cleared: await scriptRegistries().clear(caller.userId, input.ecosystem),
}));
