import { httpHandler } from '#platform/http.js';
import { paymentRoutes } from '#functions/payments/routes.js';
import { paymentService } from '../wiring.js';

export const handler = httpHandler(paymentRoutes.updatePaymentSettings, ({ input, caller }) => paymentService().updatePaymentSettings(caller, input));
