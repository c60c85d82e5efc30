import { httpHandler } from '#platform/http.js';
import { scriptAuthoring } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(scriptRoutes.modifyFlowScript, async ({ input, caller }) => scriptAuthoring().modifyFlowScript(caller.userId, input));
