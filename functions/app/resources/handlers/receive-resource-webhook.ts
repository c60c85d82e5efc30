import { httpHandler } from '#platform/http.js';
import { resourceRoutes } from '#functions/resources/routes.js';
import { webhookService } from '../wiring.js';

// The signature covers the bytes as sent, so they are taken from the event, not from the parsed input.
export const handler = httpHandler(resourceRoutes.receiveResourceWebhook, ({ input, headers, event }) =>
  webhookService().receive(input.installationId, headers, Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8')),
);
