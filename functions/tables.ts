// The one set of DynamoDB table definitions, read by lib/data.ts (CDK) and by the local runtime.
// Each area declares its tables in functions/<area>/tables.ts; this file assembles them.
import { accountTables } from './accounts/tables.js';
import { marketplaceTables } from './marketplace/tables.js';
import { documentTables } from './documents/tables.js';
import { eventTables } from './events/tables.js';
import { flowTables } from './flows/tables.js';
import { paymentTables } from './payments/tables.js';
import { platformTables } from './platform/tables.js';
import { resourceTables } from './resources/tables.js';
import { scriptTables } from './scripts/tables.js';
import { templateTables } from './templates/tables.js';

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
  ...platformTables,
  ...accountTables,
  ...scriptTables,
  ...resourceTables,
  ...marketplaceTables,
  ...documentTables,
  ...paymentTables,
  ...eventTables,
  ...flowTables,
  ...templateTables,
} as const satisfies Record<string, TableDefinition>;

export type TableName = keyof typeof tables;

export const tableNames = Object.keys(tables) as TableName[];

export const keyName = (attribute: KeyAttribute) => (typeof attribute === 'string' ? attribute : attribute.name);
export const keyType = (attribute: KeyAttribute): 'S' | 'N' => (typeof attribute === 'string' ? 'S' : 'N');

/** Env var through which a function learns a table's physical name on AWS: `TABLE_API_KEYS`. */
export const tableEnvVar = (name: TableName) => `TABLE_${name.replace(/([a-z])([A-Z])/g, '$1_$2').toUpperCase()}`;
