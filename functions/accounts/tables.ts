import type { TableDefinition } from '../platform/table-definition.js';

export const accountTables = {
  users: {
    partitionKey: 'userId',
    description: 'Accounts: username, wallet address, monthly budget.',
  },
  usernames: {
    partitionKey: 'username',
    description: 'Uniqueness claims on usernames (lower-cased), written in the same transaction as the user.',
  },
  apiKeys: {
    partitionKey: 'keyHash',
    indexes: { byUser: { partitionKey: 'userId', sortKey: 'createdAt' } },
    description: 'API keys by SHA-256 of the key; the key itself is never stored.',
  },
} as const satisfies Record<string, TableDefinition>;
