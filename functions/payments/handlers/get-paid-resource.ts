import { paymentRoutes } from '../routes.js';
import { paidCallHandler } from '../x402-http.js';

export const handler = paidCallHandler(paymentRoutes.getPaidResource);
