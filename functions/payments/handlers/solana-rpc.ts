import { Reply, httpHandler } from '#platform/http.js';
import { solanaRpc } from '../local-tools.js';
import { paymentRoutes } from '../routes.js';

export const handler = httpHandler(paymentRoutes.solanaRpc, async ({ input }) => new Reply(200, await solanaRpc(input)));
