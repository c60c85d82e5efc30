import { httpHandler } from '#platform/http.js';
import { resourceRoutes } from '#functions/resources/routes.js';
import { resourceService } from '../wiring.js';

export const handler = httpHandler(resourceRoutes.listMarketplaceResources, ({ input }) => resourceService().marketplace(input));
