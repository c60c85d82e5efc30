import { agentAdmission } from '#functions/app/payments/wiring.js';
import { answerMcp } from '#functions/app/mcp/stateless-http.js';
import { marketplaceMcpServer } from '#functions/app/payments/marketplace-mcp-server.js';
import { paymentService } from '#functions/app/payments/wiring.js';
import { paymentRoutes } from '#functions/payments/routes.js';
import { httpHandler } from '#platform/http.js';

/** The client as it names itself (User-Agent), bounded: kept on the payment record. */
const clientOf = (userAgent: string | undefined) => userAgent?.slice(0, 200) ?? null;

export const handler = httpHandler(paymentRoutes.mcpMarketplace, async ({ event, rawBody, baseUrl, headers }) => {
  const admission = await agentAdmission(headers);
  return answerMcp(event, rawBody, baseUrl, () =>
    marketplaceMcpServer(paymentService(), {
      serverUrl: `${baseUrl}${event.rawPath}`,
      baseUrl,
      client: clientOf(headers['user-agent']),
      ...(admission && { admission }),
    }),
  );
});
