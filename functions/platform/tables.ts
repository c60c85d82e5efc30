import type { TableDefinition } from './table-definition.js';

export const platformTables = {
  rateLimits: {
    partitionKey: 'bucket',
    ttlAttribute: 'expiresAt',
    description: 'Fixed-window request counters (per key per minute, per resource window).',
  },
} as const satisfies Record<string, TableDefinition>;
