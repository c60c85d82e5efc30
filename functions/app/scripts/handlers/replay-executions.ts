import { httpHandler } from '#platform/http.js';
import { replayRuns } from '#functions/app/run-operations.js';
import { runRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(runRoutes.replayExecutions, async ({ input, caller }) => ({ executionIds: await replayRuns(caller.userId, input) }));
