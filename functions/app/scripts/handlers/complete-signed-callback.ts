import { httpHandler } from '#platform/http.js';
import { atTheEdge, durableCallbacks } from '#functions/app/durable-engine.js';
import { runRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(runRoutes.completeSignedCallback, async ({ input }) => {
  await durableCallbacks()
    .completeWithToken(input.executionId, input.callbackId, input.token, input.error ? { error: input.error } : { result: input.result })
    .catch((error: unknown) => {
      throw atTheEdge(error);
    });
  return { message: `callback ${input.callbackId} completed: the run continues` };
});
