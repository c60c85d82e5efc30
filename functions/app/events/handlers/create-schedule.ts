import { httpHandler } from '#platform/http.js';
import { eventRoutes } from '#functions/events/routes.js';
import { triggerService } from '../triggers.js';

export const handler = httpHandler(eventRoutes.createSchedule, ({ input, caller }) => triggerService().createSchedule(caller, input));
