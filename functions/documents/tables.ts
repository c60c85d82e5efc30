import type { TableDefinition } from '../platform/table-definition.js';

export const documentTables = {
  documents: {
    partitionKey: 'documentId',
    description: 'Uploaded documents: owner, metadata, status, chunk count, the graphs holding them (graphIds, first = primary).',
  },
  graphDocuments: {
    partitionKey: 'graphId',
    sortKey: 'documentId',
    description: 'A document in a graph: isPrimary, sharedAt, sharedByUserId, shareReason. Query by graph to list or index it.',
  },
  documentChunks: {
    partitionKey: 'documentId',
    sortKey: { name: 'position', type: 'number' },
    description: 'Chunks of a document in order: content, heading, pageNumber, charOffset.',
  },
  documentVectors: {
    partitionKey: 'documentId',
    sortKey: { name: 'segment', type: 'number' },
    description: "A document's chunk vectors, int8-quantised, in segments of consecutive positions, with the model that made them.",
  },
  graphTerms: {
    partitionKey: 'graphTerm',
    sortKey: 'documentId',
    description: "Lexical index of large graphs: per '<graphId> <term>' and document, the chunks holding the term (positions, counts, lengths).",
  },
  graphs: {
    partitionKey: 'graphId',
    description: "Group graphs (name, owner) and every graph's content version, bumped on each change so warm search indexes reload.",
  },
  graphMembers: {
    partitionKey: 'graphId',
    sortKey: 'userId',
    indexes: { byUser: { partitionKey: 'userId', sortKey: 'graphId' } },
    description: 'Members of group graphs with their role (owner, member); byUser lists the groups of a user.',
  },
} as const satisfies Record<string, TableDefinition>;
