import { httpHandler } from '#platform/http.js';
import { eventRoutes } from '#functions/events/routes.js';
import { subscriptionService } from '../triggers.js';

export const handler = httpHandler(eventRoutes.updateSubscription, ({ input, caller }) => subscriptionService().update(caller, input));
