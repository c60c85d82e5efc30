import type { TableDefinition } from '../platform/table-definition.js';

export const approvalTables = {
  approvals: {
    partitionKey: 'approvalId',
    ttlAttribute: 'retainUntil',
    description:
      'Approval requests of durable runs (waitForApproval and approval-gated LLM tool calls): run, script, flow, approvers, message, status, the decision, and the SHA-256 of each approver’s signed-link token. Kept 90 days after expiry.',
  },
  approverInbox: {
    partitionKey: 'approverId',
    sortKey: 'approvalId',
    ttlAttribute: 'retainUntil',
    description:
      'The pending approvals of each approver, written and removed in the same transaction as the approval’s status (an expired one stays until its TTL, hidden by its `expiresAt`): GET /approvals is one Query by approver.',
  },
} as const satisfies Record<string, TableDefinition>;
