import { httpHandler } from '#platform/http.js';
import { runOperations } from '../wiring.js';
import { runRoutes } from '../routes.js';

export const handler = httpHandler(runRoutes.rerunExecution, async ({ input, caller }) => ({
  executionId: await runOperations().rerun(caller.userId, input.executionId, input.fromStep),
  status: 'running' as const,
}));
