import { httpHandler } from '#platform/http.js';
import { scriptAuthoring } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(scriptRoutes.lintScript, async ({ input, caller }) => scriptAuthoring().lint(caller.userId, input));
