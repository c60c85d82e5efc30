import { httpHandler } from '#platform/http.js';
import { runOperations } from '../wiring.js';
import { runRoutes } from '../routes.js';

export const handler = httpHandler(runRoutes.cancelExecution, async ({ input, caller }) => {
  const cancelled = await runOperations().cancel(caller.userId, input.executionId);
  return { executionId: cancelled.executionId, status: 'cancelled' as const };
});
