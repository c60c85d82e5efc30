import { httpHandler } from '#platform/http.js';
import { eventHistory } from '../history.js';
import { eventRoutes } from '#functions/events/routes.js';

export const handler = httpHandler(eventRoutes.listEvents, ({ input, caller }) => eventHistory().list(caller, input));
