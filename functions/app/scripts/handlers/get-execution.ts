import { httpHandler } from '#platform/http.js';
import { scriptInsights } from '../wiring.js';
import { stepsPage } from '#functions/scripts/runs/execution-store.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { sdk } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.getExecution, async ({ input, caller }) => {
  const { execution, logLines } = await scriptInsights().execution(caller.userId, input.executionId, stepsPage(input));
  return sdk.execution(execution, logLines);
});
