import { httpHandler } from '#platform/http.js';
import { flowRoutes } from '#functions/flows/routes.js';
import { flowService } from '../wiring.js';

export const handler = httpHandler(flowRoutes.createTimeFlow, ({ input, caller }) => flowService().createTimeFlow(caller, input));
