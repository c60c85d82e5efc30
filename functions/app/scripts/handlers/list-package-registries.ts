import { httpHandler } from '#platform/http.js';
import { registryView } from '#functions/scripts/packages/registries.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptRegistries } from '../wiring.js';

export const handler = httpHandler(scriptRoutes.listPackageRegistries, async ({ caller }) => ({
  registries: (await scriptRegistries().list(caller.userId)).map(registryView),
}));
