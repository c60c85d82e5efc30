import { Reply, httpHandler } from '#platform/http.js';
import { solanaDevTools } from '#functions/app/payment-adapters.js';
import { platform } from '#functions/app/platform.js';
import { paymentRoutes } from '#functions/payments/routes.js';

export const handler = httpHandler(paymentRoutes.solanaRpc, async ({ input }) => new Reply(200, await solanaDevTools(platform()).solanaRpc(input)));
