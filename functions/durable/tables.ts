import type { TableDefinition } from '../platform/table-definition.js';

// The journal keeps the name it was deployed with (scriptSteps): renaming it would replace the table, and with it the runs waiting in it.
export const durableTables = {
  scriptSteps: {
    partitionKey: 'executionId',
    sortKey: 'name',
    ttlAttribute: 'expiresAt',
    description:
      "Durable runs' journal: one item per step or wait (result, status, wake-up time), written once, and a `#run` item with the run's state and input; kept 90 days.",
  },
} as const satisfies Record<string, TableDefinition>;
