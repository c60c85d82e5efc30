import { httpHandler } from '#platform/http.js';
import { runs } from '#functions/app/run-operations.js';
import { stepsPage } from '#functions/scripts/runs/execution-store.js';
import { runRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(runRoutes.getRun, ({ input, caller }) => runs().get(caller.userId, input.executionId, stepsPage(input)));
