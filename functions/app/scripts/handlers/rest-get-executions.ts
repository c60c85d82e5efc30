import { httpHandler } from '#platform/http.js';
import { scriptInsights } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { rest } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.restGetExecutions, async ({ input, caller }) => {
  const { scriptId, status, startDate, endDate, limit, offset } = input;
  const page = await scriptInsights().history(caller.userId, scriptId, { statuses: status && [status], startDate, endDate, limit, offset });
  return { executions: page.executions.map(rest.execution), total: page.total, limit, offset };
});
