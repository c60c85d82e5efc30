import type { TableDefinition } from '../platform/table-definition.js';

export const flowTables = {
  flows: {
    partitionKey: 'flowId',
    indexes: {
      byUser: { partitionKey: 'userId', sortKey: 'createdAt' },
      // Sparse: only active event flows carry `eventKey` (`<userId>#<eventType>`), so an event finds its flows in one Query.
      byEventTrigger: { partitionKey: 'eventKey', sortKey: 'flowId' },
    },
    description: 'Flows: owner, trigger (cron or event type and condition tree), execution settings, state, counters and the executions in progress.',
  },
  flowOwners: {
    partitionKey: 'userId',
    description:
      "Per user: how many flows exist and how many were created on the current UTC day (the interface's 1,000 and 100 per day), updated with each create and delete.",
  },
  flowExecutions: {
    partitionKey: 'flowId',
    sortKey: 'entry',
    indexes: {
      // Sparse: only execution results carry `timestamp`, so a user's executions across flows are one Query (the run history).
      byUser: { partitionKey: 'userId', sortKey: 'timestamp' },
    },
    ttlAttribute: 'expiresAt',
    description:
      'Per flow: `run#NN`, a ring of the last 100 execution results (kept 90 days, with the owner and start time the `byUser` index sorts by), and `retry#<executionId>`, the input of a pending retry. ' +
      'Per execution: `execution#<executionId>` / `lookup`, its flow, owner and ring slot (kept as long as the result), so an id is found in one read.',
  },
} as const satisfies Record<string, TableDefinition>;
