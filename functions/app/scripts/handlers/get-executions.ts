import { httpHandler } from '#platform/http.js';
import { scriptInsights } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { sdk, storedStatuses } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.getExecutions, async ({ input, caller }) => {
  const { scriptId, status, startDate, endDate, limit, offset } = input;
  const page = await scriptInsights().history(caller.userId, scriptId, { statuses: status && storedStatuses[status], startDate, endDate, limit, offset });
  return { scriptId, count: page.executions.length, executions: page.executions.map(sdk.executionItem) };
});
