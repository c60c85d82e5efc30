import { httpHandler } from '#platform/http.js';
import { approvalRoutes } from '../routes.js';
import { approvalService } from '../wiring.js';

export const handler = httpHandler(approvalRoutes.getSignedApproval, ({ input }) => approvalService().readSigned(input.approvalId, input.token));
