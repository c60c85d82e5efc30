import { Reply, httpHandler } from '#platform/http.js';
import { solanaDevTools } from '#platform/wiring.js';
import { paymentRoutes } from '../routes.js';

export const handler = httpHandler(paymentRoutes.solanaRpc, async ({ input }) => new Reply(200, await solanaDevTools().solanaRpc(input)));
