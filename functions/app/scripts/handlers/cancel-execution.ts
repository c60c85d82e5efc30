import { httpHandler } from '#platform/http.js';
import { cancelRun } from '#functions/app/run-operations.js';
import { runRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(runRoutes.cancelExecution, async ({ input, caller }) => {
  await cancelRun(caller.userId, input.executionId);
  return { executionId: input.executionId, status: 'cancelled' as const };
});
