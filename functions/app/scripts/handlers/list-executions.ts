import { httpHandler } from '#platform/http.js';
import { runs } from '#functions/app/run-operations.js';
import { runRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(runRoutes.listExecutions, ({ input, caller }) => {
  const { from, to, ...query } = input;
  return runs().list(caller.userId, { ...query, startDate: from ?? query.startDate, endDate: to ?? query.endDate });
});
