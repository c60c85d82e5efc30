// The approvals area's facade: what other areas may ask of approvals (an agent's paid call waits for its owner's).
import type { ApprovalService } from './service.js';

export type ApprovalsApi = ReturnType<typeof createApprovalsApi>;

export function createApprovalsApi(service: ApprovalService) {
  return {
    request: service.request,
    statusOf: service.statusOf,
  };
}
