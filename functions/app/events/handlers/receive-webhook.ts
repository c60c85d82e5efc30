import { httpHandler } from '#platform/http.js';
import { eventRoutes } from '#functions/events/routes.js';
import { triggerService } from '../triggers.js';

export const handler = httpHandler(eventRoutes.receiveWebhook, ({ input, headers, rawBody }) =>
  triggerService().receiveWebhook({ webhookId: input.webhookId, headers, rawBody }),
);
