// The one set of DynamoDB table definitions, read by lib/data.ts (CDK) and by the local runtime.

export type KeyAttribute = string | { name: string; type: 'number' };

export interface TableDefinition {
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  /** Global secondary indexes, projecting all attributes. */
  indexes?: Record<string, { partitionKey: KeyAttribute; sortKey?: KeyAttribute }>;
  /** Epoch-seconds attribute after which DynamoDB deletes the item. */
  ttlAttribute?: string;
  description: string;
}

export const tables = {
  users: {
    partitionKey: 'userId',
    description: 'Accounts: username, wallet address, monthly budget.',
  },
  usernames: {
    partitionKey: 'username',
    description: 'Uniqueness claims on usernames, written in the same transaction as the user.',
  },
  apiKeys: {
    partitionKey: 'keyHash',
    indexes: { byUser: { partitionKey: 'userId', sortKey: 'createdAt' } },
    description: 'API keys by SHA-256 of the key; the key itself is never stored.',
  },
  rateLimits: {
    partitionKey: 'bucket',
    ttlAttribute: 'expiresAt',
    description: 'Fixed-window request counters (per key per minute, per resource window).',
  },
} as const satisfies Record<string, TableDefinition>;

export type TableName = keyof typeof tables;

export const tableNames = Object.keys(tables) as TableName[];

export const keyName = (attribute: KeyAttribute) => (typeof attribute === 'string' ? attribute : attribute.name);
export const keyType = (attribute: KeyAttribute): 'S' | 'N' => (typeof attribute === 'string' ? 'S' : 'N');

/** Env var through which a function learns a table's physical name on AWS: `TABLE_API_KEYS`. */
export const tableEnvVar = (name: TableName) => `TABLE_${name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
