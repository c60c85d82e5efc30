import { Reply, httpHandler } from '#platform/http.js';
import { paymentRoutes } from '#functions/payments/routes.js';
import { paymentService } from '../wiring.js';

// x402 facilitator clients read the bare body, as the x402 specification's facilitator answers.
export const handler = httpHandler(paymentRoutes.settlePayment, async ({ input }) => new Reply(200, await paymentService().settle(input)));
