import type { TableDefinition } from '../platform/table-definition.js';

export const resourceTables = {
  resources: {
    partitionKey: 'resourceId',
    indexes: {
      byOwner: { partitionKey: 'ownerId', sortKey: 'createdAt' },
      // Sparse: `listing` is set only while the resource is published, so drafts never reach the marketplace query.
      marketplace: { partitionKey: 'listing', sortKey: 'publishedAt' },
    },
    description: 'Resources: metadata, current definition and version, counters (installs, calls, failures, revenue, ratings).',
  },
  resourceVersions: {
    partitionKey: 'resourceId',
    sortKey: { name: 'version', type: 'number' },
    description: 'Immutable snapshots of a resource definition; installations call the version they installed.',
  },
  resourceInstallations: {
    partitionKey: 'userId',
    sortKey: 'resourceId',
    indexes: {
      byInstallationId: { partitionKey: 'installationId' },
      byResource: { partitionKey: 'resourceId', sortKey: 'installedAt' },
    },
    description: 'Installations: one per user and resource, the installed version, encrypted credentials, usage counters and recent calls.',
  },
  resourceOAuthStates: {
    partitionKey: 'stateHash',
    ttlAttribute: 'expiresAt',
    description: 'Pending OAuth2 authorization-code flows by SHA-256 of their state, single use, 10 minutes.',
  },
} as const satisfies Record<string, TableDefinition>;
