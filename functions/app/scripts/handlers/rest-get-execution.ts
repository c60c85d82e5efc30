import { NotFoundError } from '#platform/errors.js';
import { httpHandler } from '#platform/http.js';
import { scriptInsights } from '../wiring.js';
import { stepsPage } from '#functions/scripts/runs/execution-store.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { logTexts } from '#functions/scripts/model.js';
import { rest } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.restGetExecution, async ({ input, caller }) => {
  const { execution, logLines } = await scriptInsights().execution(caller.userId, input.executionId, stepsPage(input));
  if (execution.scriptId !== input.scriptId) throw new NotFoundError('executionId', input.executionId, 'execution');
  return { ...rest.execution(execution), result: execution.output, logs: logTexts(logLines), logLines, error: execution.error };
});
