import { Reply, httpHandler } from '#platform/http.js';
import { eventRoutes } from '#functions/events/routes.js';
import { subscriptionService } from '../triggers.js';

export const handler = httpHandler(eventRoutes.deleteSubscription, async ({ input, caller }) =>
  Reply.message(await subscriptionService().delete(caller, input)),
);
