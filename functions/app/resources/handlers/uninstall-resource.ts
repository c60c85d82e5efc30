import { Reply, httpHandler } from '#platform/http.js';
import { installationService } from '../wiring.js';
import { resourceRoutes } from '#functions/resources/routes.js';

export const handler = httpHandler(resourceRoutes.uninstallResource, async ({ input, caller }) =>
  Reply.message(await installationService().uninstall(caller, input.resourceId)),
);
