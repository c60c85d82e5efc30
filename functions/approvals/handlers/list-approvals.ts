import { httpHandler } from '#platform/http.js';
import { approvalRoutes } from '../routes.js';
import { approvalService } from '../wiring.js';

export const handler = httpHandler(approvalRoutes.listApprovals, ({ input, caller }) => approvalService().listPending(caller, input));
