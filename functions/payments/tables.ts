import type { TableDefinition } from '../platform/table-definition.js';

export const paymentTables = {
  payments: {
    partitionKey: 'txHash',
    indexes: { byOwner: { partitionKey: 'agentOwnerId', sortKey: 'timestamp' } },
    description:
      'x402 payment records, one per Solana transaction signature: claimed by a conditional write before submitting (settles once), ' +
      'pending -> confirmed | failed, with the response served for the payment so a replay gets it back.',
  },
  payouts: {
    partitionKey: 'txHash',
    indexes: {
      byStatus: { partitionKey: 'payoutStatus', sortKey: 'createdAt' },
      // Sparse: `owedOwner` is set only while the entry is owed.
      owedByOwner: { partitionKey: 'owedOwner', sortKey: 'createdAt' },
    },
    description:
      "The payout ledger: one entry per reference-client payment, the owner's share (agentOwnerAmount) owed -> batched -> paid, " +
      "back to owed when its batch fails; written with the payment's confirmation in one transaction.",
  },
  payoutBatches: {
    partitionKey: 'batchId',
    indexes: { byStatus: { partitionKey: 'batchStatus', sortKey: 'createdAt' }, byOwner: { partitionKey: 'ownerId', sortKey: 'createdAt' } },
    description: 'Payout transactions, one per owner and asset per run: submitted -> paid | failed, reconciled against the chain by signature.',
  },
  agentBudgets: {
    partitionKey: 'keyId',
    sortKey: 'entry',
    ttlAttribute: 'expiresAt',
    description:
      "Agent budgets of API keys: `day#<UTC date>` counts the micro-USD the key's paid calls spent that day (a conditional ADD: no two calls " +
      'overspend the limit); `approval#<approvalId>` is a paid call above the approval threshold waiting for the owner, used once when approved.',
  },
  paymentSettings: {
    partitionKey: 'userId',
    description: "An owner's payment settings: splitOfferOnly refuses payments held by the platform (only the interface's split offer is made).",
  },
} as const satisfies Record<string, TableDefinition>;
