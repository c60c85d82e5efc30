import type { TableDefinition } from '../platform/table-definition.js';

export const paymentTables = {
  payments: {
    partitionKey: 'txHash',
    indexes: { byOwner: { partitionKey: 'agentOwnerId', sortKey: 'timestamp' } },
    description:
      'x402 payment records, one per Solana transaction signature: claimed by a conditional write before submitting (settles once), ' +
      'pending -> confirmed | failed, with the response served for the payment so a replay gets it back.',
  },
} as const satisfies Record<string, TableDefinition>;
