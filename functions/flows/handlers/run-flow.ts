import { httpHandler } from '#platform/http.js';
import { flowRoutes } from '../routes.js';
import { flowService } from '../wiring.js';

export const handler = httpHandler(flowRoutes.runFlow, ({ input, caller }) => flowService().run(caller, input.assignmentId));
