import { httpHandler } from '#platform/http.js';
import { runOperations } from '../wiring.js';
import { runRoutes } from '../routes.js';

export const handler = httpHandler(runRoutes.completeCallback, async ({ input, caller }) => {
  await runOperations().completeCallback(caller.userId, input.executionId, input.callbackId, input.error ? { error: input.error } : { result: input.result });
  return { message: `callback ${input.callbackId} completed: the run continues` };
});
