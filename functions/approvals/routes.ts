import { defineRoutes } from '#platform/route.js';
import { scopes } from '#platform/scopes.js';
import { Approval, ApprovalList, DecideApprovalInput, ListApprovalsInput, SignedApproval, SignedApprovalInput, SignedDecisionInput } from './schemas.js';

/** Deciding settles the approval, empties the approvers' inboxes and resumes the waiting run (journal, timer, bus). */
const decideTables = { approvals: 'write', approverInbox: 'write', scriptSteps: 'write' } as const;
const decideUses = ['scheduler' as const, 'eventBus' as const];
/** Approving is acting on runs of scripts: the scope that changes scripts. */
const decideScopes = [scopes.scriptsManage];

export const approvalRoutes = defineRoutes('approvals', {
  listApprovals: {
    method: 'GET',
    path: '/api/sdk/v1/approvals',
    auth: 'apiKey',
    scopes: [scopes.scriptsRead, scopes.scriptsManage],
    summary: 'The pending approvals the caller is an approver of, soonest expiry first; `count` is the page’s',
    input: ListApprovalsInput,
    output: ApprovalList,
    tables: { approverInbox: 'read', approvals: 'read' },
  },
  decideApproval: {
    method: 'POST',
    path: '/api/sdk/v1/approvals/{approvalId}',
    auth: 'apiKey',
    scopes: decideScopes,
    summary: 'Approve or reject a pending approval the caller is an approver of; the waiting run resumes with the decision',
    description:
      'Only a listed approver decides: anyone else gets NOT_FOUND. The run’s own user is refused (FORBIDDEN) unless they own the script and are its only approver. ' +
      'An approval decided, past its expiry, or cancelled because its run ended is CONFLICT (the message says why). ' +
      'A decision holds for its run only: a re-run or replay that reaches the approval asks again, unless `allowReuse: true` lets re-runs of this run from a later step reuse it.',
    input: DecideApprovalInput,
    output: Approval,
    tables: decideTables,
    uses: decideUses,
  },
  getSignedApproval: {
    method: 'GET',
    path: '/api/sdk/v1/approvals/{approvalId}/signed',
    auth: 'public',
    summary:
      'The approval a signed link is for, read with the link’s token instead of a key; `approver` is whom the link acts for, `scriptName` the name of the script that asks',
    input: SignedApprovalInput,
    output: SignedApproval,
    // The script's name: the approver may hold no key to look it up.
    tables: { approvals: 'read', scripts: 'read' },
  },
  decideSignedApproval: {
    method: 'POST',
    path: '/api/sdk/v1/approvals/{approvalId}/signed',
    auth: 'public',
    summary:
      'Approve or reject with a signed link’s token instead of a key, as the approver the link was sent to (the link reaches that approver only); refused once the approval is decided or cancelled; `allowReuse` as with a key',
    input: SignedDecisionInput,
    output: Approval,
    tables: decideTables,
    uses: decideUses,
  },
});
