import type { TableDefinition } from '../platform/table-definition.js';

export const reviewTables = {
  reviews: {
    partitionKey: 'itemKey',
    sortKey: 'userId',
    description: 'Reviews of marketplace items (`<itemType>#<itemId>`), one per user and item by key.',
  },
} as const satisfies Record<string, TableDefinition>;
