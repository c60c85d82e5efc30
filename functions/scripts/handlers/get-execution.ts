import { httpHandler } from '#platform/http.js';
import { scriptInsights } from '../wiring.js';
import { scriptRoutes } from '../routes.js';
import { sdk } from '../views/views.js';

export const handler = httpHandler(scriptRoutes.getExecution, async ({ input, caller }) => {
  const { execution, logs } = await scriptInsights().execution(caller.userId, input.executionId);
  return sdk.execution(execution, logs);
});
