import { httpHandler } from '#platform/http.js';
import { scriptInsights } from '../wiring.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { sdk } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.getMetrics, async ({ input, caller }) =>
  sdk.metrics(await scriptInsights().metrics(caller.userId, input.scriptId)),
);
