import { httpHandler } from '#platform/http.js';
import { scriptInsights } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(scriptRoutes.followExecutionLogs, ({ input, caller }) =>
  scriptInsights().followLogs(caller.userId, input.executionId, input.after, input.wait * 1000),
);
