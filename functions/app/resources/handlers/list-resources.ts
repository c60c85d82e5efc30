import { httpHandler } from '#platform/http.js';
import { resourceRoutes } from '#functions/resources/routes.js';
import { resourceService } from '../wiring.js';

export const handler = httpHandler(resourceRoutes.listResources, ({ input, caller }) => resourceService().listOwn(caller, input));
