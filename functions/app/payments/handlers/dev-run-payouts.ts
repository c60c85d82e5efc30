import { httpHandler } from '#platform/http.js';
import { paymentRoutes } from '#functions/payments/routes.js';
import { payoutService } from '../wiring.js';

export const handler = httpHandler(paymentRoutes.devRunPayouts, () => payoutService().run());
