import type { TableDefinition } from '../platform/table-definition.js';

export const templateTables = {
  templates: {
    partitionKey: 'templateId',
    indexes: {
      byOwner: { partitionKey: 'ownerId', sortKey: 'createdAt' },
      // Sparse: `listing` is set only while the template is published.
      templateMarketplace: { partitionKey: 'listing', sortKey: 'publishedAt' },
    },
    description: 'Templates: metadata, repository and newest version, last good build, pricing, counters (installs, ratings).',
  },
  templateVersions: {
    partitionKey: 'templateId',
    sortKey: 'version',
    description: 'Template versions: a semantic version pinned to a commit of the repository.',
  },
  templateBuilds: {
    partitionKey: 'buildId',
    description: 'Builder runs (a template preview or one installation page): status, reason, manifest read, logs.',
  },
  templateInstallations: {
    partitionKey: 'installationId',
    indexes: {
      byUser: { partitionKey: 'userId', sortKey: 'installedAt' },
      byTemplate: { partitionKey: 'templateId', sortKey: 'installedAt' },
    },
    description: 'Installed templates: version pinned, customization values, subdomain, scripts and resources installed with it.',
  },
  templateSites: {
    partitionKey: 'subdomain',
    description: 'Subdomains handed out to template previews and installations, one owner each (a conditional put keeps them unique).',
  },
} as const satisfies Record<string, TableDefinition>;
