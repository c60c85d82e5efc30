import { httpHandler } from '#platform/http.js';
import { eventIngest } from '../ingest.js';
import { eventRoutes } from '#functions/events/routes.js';

export const handler = httpHandler(eventRoutes.publishEvent, ({ input, caller }) => eventIngest().publish(caller, input));
