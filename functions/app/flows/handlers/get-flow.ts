import { httpHandler } from '#platform/http.js';
import { flowRoutes } from '#functions/flows/routes.js';
import { flowService } from '../wiring.js';

export const handler = httpHandler(flowRoutes.getFlow, ({ input, caller }) => flowService().get(caller, input.assignmentId));
