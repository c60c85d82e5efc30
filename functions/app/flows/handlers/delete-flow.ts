import { httpHandler } from '#platform/http.js';
import { flowRoutes } from '#functions/flows/routes.js';
import { flowService } from '../wiring.js';

export const handler = httpHandler(flowRoutes.deleteFlow, ({ input, caller }) => flowService().remove(caller, input.assignmentId));
