import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '../routes.js';
import { throwIfRestFailure } from '../run-failures.js';
import { scriptRunner } from '../runner.js';
import { rest } from '../views.js';

export const handler = httpHandler(scriptRoutes.restExecuteScript, async ({ input, caller }) => {
  const result = await scriptRunner().execute({ scriptId: input.scriptId, userId: caller.userId, data: input.data, trigger: { type: 'manual', source: 'api' }, viaApi: true });
  throwIfRestFailure(result.execution, result.output);
  return rest.executed(result);
});
