import { Reply, httpHandler } from '#platform/http.js';
import { resourceRoutes } from '#functions/resources/routes.js';
import { resourceService } from '../wiring.js';

export const handler = httpHandler(resourceRoutes.deleteResource, async ({ input, caller }) =>
  Reply.message(await resourceService().delete(caller, input.resourceId)),
);
