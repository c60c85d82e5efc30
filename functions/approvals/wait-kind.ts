// The `approval` wait kind the approvals area declares for durable runs: the code asks named users to decide, the
// run waits for the decision (or the timeout), and a run that ends first takes the request out of their inboxes.
import type { WaitKind } from '#functions/durable/api.js';
import { type ApprovalService, reusableOutcome } from './service.js';

export function approvalWaitKind(
  approvals: Pick<ApprovalService, 'request' | 'cancel'>,
  scriptOwner: (scriptId: string) => Promise<string | undefined>,
): WaitKind {
  return {
    type: 'approval',
    onTimeout: 'timeout',
    async open(owner, name, args) {
      // A flow's agent loop asks on behalf of the flow's owner, the run's own user.
      const ownerId = owner.flowId && !owner.scriptId ? owner.userId : ((await scriptOwner(owner.scriptId)) ?? owner.userId);
      const { approval, timeoutSeconds } = await approvals.request({ ...owner, ownerId }, name, args);
      return { timeoutSeconds, fields: { approvalId: approval.approvalId }, reply: { approvalId: approval.approvalId } };
    },
    // A decision holds for its run: a re-run asks again unless the approver let re-runs reuse it.
    reusable: (entry) => entry.status === 'succeeded' && reusableOutcome(entry.result),
    close: (entry, reason) => approvals.cancel(String(entry.fields?.approvalId), reason),
  };
}
