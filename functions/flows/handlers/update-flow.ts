import { httpHandler } from '#platform/http.js';
import { flowRoutes } from '../routes.js';
import { flowService } from '../wiring.js';

export const handler = httpHandler(flowRoutes.updateFlow, ({ input, caller }) => flowService().update(caller, input));
