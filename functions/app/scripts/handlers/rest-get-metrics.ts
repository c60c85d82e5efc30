import { httpHandler } from '#platform/http.js';
import { scriptInsights } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { rest } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.restGetMetrics, async ({ input, caller }) =>
  rest.metrics(await scriptInsights().metrics(caller.userId, input.scriptId)),
);
