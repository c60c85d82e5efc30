import { httpHandler } from '#platform/http.js';
import { registryView } from '#functions/scripts/packages/registries.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptRegistries } from '../wiring.js';

export const handler = httpHandler(scriptRoutes.setPackageRegistry, async ({ input, caller }) =>
  registryView(await scriptRegistries().set(caller.userId, input)),
);
