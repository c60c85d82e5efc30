import { mcpServerJson } from '#functions/payments/discovery.js';
import { paymentRoutes } from '#functions/payments/routes.js';
import { Reply, httpHandler } from '#platform/http.js';
import { settings } from '#platform/settings.js';

// The registry's format as it is, not the envelope.
export const handler = httpHandler(paymentRoutes.getMcpServerJson, async ({ baseUrl }) => new Reply(200, mcpServerJson(baseUrl, settings.version)));
