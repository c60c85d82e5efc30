import { httpHandler } from '#platform/http.js';
import { flowRoutes } from '#functions/flows/routes.js';
import { flowService } from '../wiring.js';

export const handler = httpHandler(flowRoutes.pauseFlow, ({ input, caller }) => flowService().pause(caller, input.assignmentId));
