import { httpHandler } from '#platform/http.js';
import { rerunRun } from '#functions/app/run-operations.js';
import { runRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(runRoutes.rerunExecution, async ({ input, caller }) => ({
  executionId: await rerunRun(caller.userId, input.executionId, input.fromStep),
  status: 'running' as const,
}));
