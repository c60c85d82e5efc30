import { httpHandler } from '#platform/http.js';
import { approvalRoutes } from '#functions/approvals/routes.js';
import { readSignedApproval } from '../wiring.js';

export const handler = httpHandler(approvalRoutes.getSignedApproval, ({ input }) => readSignedApproval(input.approvalId, input.token));
