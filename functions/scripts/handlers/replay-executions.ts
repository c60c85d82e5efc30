import { httpHandler } from '#platform/http.js';
import { runOperations } from '../wiring.js';
import { runRoutes } from '../routes.js';

export const handler = httpHandler(runRoutes.replayExecutions, async ({ input, caller }) => ({
  executionIds: await runOperations().replay(caller.userId, input),
}));
