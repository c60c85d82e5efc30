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
  catalogStamps: {
    partitionKey: 'userId',
    description: "Per-user change counters of what an agent's MCP tool catalog is built from (installed resources, runnable scripts, flows).",
  },
} as const satisfies Record<string, TableDefinition>;
