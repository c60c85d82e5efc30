import { httpHandler } from '#platform/http.js';
import { callService } from '../wiring.js';
import { resourceRoutes } from '#functions/resources/routes.js';

export const handler = httpHandler(resourceRoutes.callResource, ({ input, caller }) => callService().callWithKey(caller, input));
