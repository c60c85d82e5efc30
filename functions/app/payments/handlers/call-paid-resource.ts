import { agentAdmission } from '#functions/app/payments/wiring.js';
import { paymentService } from '#functions/app/payments/wiring.js';
import { paymentRoutes } from '#functions/payments/routes.js';
import { paidCallHandler } from '#functions/payments/x402-http.js';

export const handler = paidCallHandler(paymentRoutes.callPaidResource, paymentService, agentAdmission);
