import { marketplaceMcpServer } from '#functions/app/payments/marketplace-mcp-server.js';
import { agentAdmission, paymentService } from '#functions/app/payments/wiring.js';
import { paymentRoutes } from '#functions/payments/routes.js';
import { requestBaseUrl } from '#platform/http.js';
import { mcpHandler } from '#platform/mcp-http.js';

export const handler = mcpHandler(paymentRoutes.mcpMarketplace, async ({ client, event }) => {
  const admission = await agentAdmission(event.headers);
  const baseUrl = requestBaseUrl(event);
  return marketplaceMcpServer(paymentService(), {
    serverUrl: `${baseUrl}${event.rawPath}`,
    baseUrl,
    client,
    ...(admission && { admission }),
  });
});
