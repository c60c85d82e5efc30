import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '../routes.js';
import { throwIfStoppedByLimit } from '../run-failures.js';
import { scriptRunner } from '../runner.js';
import { sdk } from '../views.js';

export const handler = httpHandler(scriptRoutes.executeScript, async ({ input, caller }) => {
  const result = await scriptRunner().execute({ scriptId: input.scriptId, userId: caller.userId, data: input.data, trigger: input.trigger, viaApi: true });
  throwIfStoppedByLimit(result.execution);
  return sdk.execution(result.execution, result.logs, result.output);
});
