import type { TableDefinition } from '../platform/table-definition.js';

export const scriptTables = {
  scripts: {
    partitionKey: 'scriptId',
    indexes: {
      byOwner: { partitionKey: 'ownerId', sortKey: 'createdAt' },
      // Sparse: only scripts in the marketplace carry `listed`.
      byListing: { partitionKey: 'listed' },
    },
    description: 'Scripts: metadata, config, lifecycle state, deployment, and running totals for metrics.',
  },
  scriptVersions: {
    partitionKey: 'scriptId',
    sortKey: { name: 'version', type: 'number' },
    description: 'Immutable script versions (integer and semver), their code and where each is deployed.',
  },
  scriptExecutions: {
    partitionKey: 'executionId',
    indexes: {
      byScriptUser: { partitionKey: 'scriptUser', sortKey: 'createdAt' },
      byUser: { partitionKey: 'userId', sortKey: 'createdAt' },
      // Sparse: only runs queued by their throttle carry `queueKey`, in start order.
      byQueue: { partitionKey: 'queueKey', sortKey: 'queueOrder' },
    },
    ttlAttribute: 'expiresAt',
    description: 'One item per script run (status, duration, memory, cost, output); kept 90 days.',
  },
  scriptExecutionLogs: {
    partitionKey: 'executionId',
    ttlAttribute: 'expiresAt',
    description: 'Captured console output of a script run; kept 30 days.',
  },
  scriptInstallations: {
    partitionKey: 'scriptId',
    sortKey: 'userId',
    indexes: { byUser: { partitionKey: 'userId', sortKey: 'installedAt' } },
    description: 'Who installed which script (the owner gets one at creation); one per user and script.',
  },
  scriptRegistries: {
    partitionKey: 'userId',
    sortKey: 'ecosystem',
    description: "Each account's private package registries (npm, pypi): URL and the token sealed by the credential vault.",
  },
  scriptCounters: {
    partitionKey: 'counter',
    ttlAttribute: 'expiresAt',
    description:
      "Runs per script per UTC day (daily limit), spend per user per month (budget), and on AWS each run's resource-call tally and each script's concurrency lease.",
  },
} as const satisfies Record<string, TableDefinition>;
