// The one set of DynamoDB table definitions, read by lib/data.ts (CDK) and by the local runtime.
// Each area declares its tables in functions/<area>/tables.ts; this file assembles them.
import { accountTables } from './accounts/tables.js';
import { approvalTables } from './approvals/tables.js';
import { reviewTables } from './reviews/tables.js';
import { documentTables } from './documents/tables.js';
import { durableTables } from './durable/tables.js';
import { eventTables } from './events/tables.js';
import { flowTables } from './flows/tables.js';
import { oauthTables } from './oauth/tables.js';
import { paymentTables } from './payments/tables.js';
import { platformTables } from './platform/tables.js';
import { resourceTables } from './resources/tables.js';
import { scriptTables } from './scripts/tables.js';
import type { TableDefinition } from './platform/table-definition.js';
import { templateTables } from './templates/tables.js';

export { type KeyAttribute, type TableDefinition, keyName, keyType } from './platform/table-definition.js';
export { tableEnvVar } from './platform/env-names.js';

export const tables = {
  ...platformTables,
  ...accountTables,
  ...scriptTables,
  ...durableTables,
  ...resourceTables,
  ...reviewTables,
  ...documentTables,
  ...paymentTables,
  ...eventTables,
  ...approvalTables,
  ...flowTables,
  ...templateTables,
  ...oauthTables,
} as const satisfies Record<string, TableDefinition>;

export type TableName = keyof typeof tables;

// Gives the kernel's table names (functions/platform/table-definition.ts) this list, so a misspelt table is a type error.
type Assembled = typeof tables;
declare module './platform/table-definition.js' {
  interface TableRegistry extends Assembled {}
}

export const tableNames = Object.keys(tables) as TableName[];
