import { httpHandler } from '#platform/http.js';
import { runOperations } from '../wiring.js';
import { atTheEdge } from '#functions/app/durable-engine.js';
import { runRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(runRoutes.completeCallback, async ({ input, caller }) => {
  await runOperations()
    .completeCallback(caller.userId, input.executionId, input.callbackId, input.error ? { error: input.error } : { result: input.result })
    .catch((error: unknown) => {
      throw atTheEdge(error);
    });
  return { message: `callback ${input.callbackId} completed: the run continues` };
});
