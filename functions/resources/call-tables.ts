import type { TableAccess } from '../platform/route.js';
import type { TableName } from '#platform/table-definition.js';

/**
 * Tables a function needs to call resources (the call route, and through the ResourceCaller port scripts, flows and
 * payments' callAsOwner), besides `uses: ['credentialsKey']`: spread it into a route's `tables`.
 */
export const resourceCallTables = {
  resources: 'write',
  resourceVersions: 'read',
  resourceInstallations: 'write',
  rateLimits: 'write',
} as const satisfies Partial<Record<TableName, TableAccess>>;
