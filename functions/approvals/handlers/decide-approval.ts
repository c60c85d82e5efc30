import { httpHandler } from '#platform/http.js';
import { approvalRoutes } from '../routes.js';
import { approvalService } from '../wiring.js';

export const handler = httpHandler(approvalRoutes.decideApproval, ({ input, caller }) =>
  approvalService().decide(caller, input.approvalId, input.decision, input.comment),
);
