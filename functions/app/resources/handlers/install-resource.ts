import { httpHandler } from '#platform/http.js';
import { installationService } from '../wiring.js';
import { resourceRoutes } from '#functions/resources/routes.js';

export const handler = httpHandler(resourceRoutes.installResource, ({ input, caller, baseUrl }) =>
  installationService().install(caller, input.resourceId, baseUrl),
);
