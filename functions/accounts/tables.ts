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
    // OAuth tokens carry no userId (out of the index) and an epoch-seconds expiresAt; API keys and grants never expire.
    ttlAttribute: 'expiresAt',
    description:
      'API keys by SHA-256 of the key, OAuth grants (grant#<grantId>) and their access and refresh tokens by SHA-256; no key or token itself is stored.',
  },
} as const satisfies Record<string, TableDefinition>;
