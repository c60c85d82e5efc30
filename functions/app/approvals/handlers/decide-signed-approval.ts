import { httpHandler } from '#platform/http.js';
import { approvalRoutes } from '#functions/approvals/routes.js';
import { approvalService } from '../wiring.js';

export const handler = httpHandler(approvalRoutes.decideSignedApproval, ({ input }) => approvalService().decideSigned(input.approvalId, input.token, input));
