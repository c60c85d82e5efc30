import { httpHandler } from '#platform/http.js';
import { paymentRoutes } from '../routes.js';
import { payoutService } from '../service.js';

export const handler = httpHandler(paymentRoutes.devRunPayouts, () => payoutService().run());
