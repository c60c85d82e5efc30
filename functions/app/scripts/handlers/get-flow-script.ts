import { httpHandler } from '#platform/http.js';
import { scriptAuthoring } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(scriptRoutes.getFlowScript, async ({ input, caller }) => scriptAuthoring().getFlowScript(caller.userId, input.flowId));
