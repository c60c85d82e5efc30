import type { TableDefinition } from './table-definition.js';

export const platformTables = {
  rateLimits: {
    partitionKey: 'bucket',
    ttlAttribute: 'expiresAt',
    description: 'Fixed-window request counters (per key per minute, per resource window).',
  },
  idempotencyKeys: {
    partitionKey: 'key',
    ttlAttribute: 'expiresAt',
    description: 'First answers of requests repeated with an Idempotency-Key or a webhook delivery id, kept 24 hours.',
  },
} as const satisfies Record<string, TableDefinition>;
