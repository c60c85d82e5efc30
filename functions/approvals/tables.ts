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
    indexes: { byExpiry: { partitionKey: 'approverId', sortKey: { name: 'retainUntil', type: 'number' } } },
    ttlAttribute: 'retainUntil',
    description:
      'The pending approvals of each approver, written and removed in the same transaction as the approval’s status (an expired one stays until its TTL, past the key condition of byExpiry): GET /approvals is one Query of byExpiry by approver and expiry. ' +
      'Also, under `#from#<requesterId>`, the approvals each other requester has pending there (id -> expiry), the bound on what others can ask of a user; it has no `retainUntil`, so byExpiry skips it.',
  },
} as const satisfies Record<string, TableDefinition>;
