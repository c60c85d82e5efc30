import { httpHandler } from '#platform/http.js';
import { resourceRoutes } from '../routes.js';
import { resourceService } from '../wiring.js';

export const handler = httpHandler(resourceRoutes.unpublishResource, ({ input, caller }) => resourceService().unpublish(caller, input.resourceId));
