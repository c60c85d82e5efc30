import { Reply, httpHandler } from '#platform/http.js';
import { flowRoutes } from '#functions/flows/routes.js';
import { flowService } from '../wiring.js';

export const handler = httpHandler(flowRoutes.searchFlows, async ({ input, caller }) => {
  const found = await flowService().search(caller, input);
  return found.variant === 'B' ? Reply.withMeta(found.data, found.meta) : found.data;
});
