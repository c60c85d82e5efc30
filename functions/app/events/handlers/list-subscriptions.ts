import { httpHandler } from '#platform/http.js';
import { eventRoutes } from '#functions/events/routes.js';
import { subscriptionService } from '../triggers.js';

export const handler = httpHandler(eventRoutes.listSubscriptions, ({ input, caller }) => subscriptionService().list(caller, input));
