// What a table definition is: areas declare theirs with these types (functions/<area>/tables.ts) and
// functions/tables.ts assembles them, so the kernel and the areas never import each other for a type.

export type KeyAttribute = string | { name: string; type: 'number' };

export interface TableDefinition {
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  /** Global secondary indexes, projecting all attributes. */
  indexes?: Record<string, { partitionKey: KeyAttribute; sortKey?: KeyAttribute }>;
  /** Epoch-seconds attribute after which DynamoDB deletes the item. */
  ttlAttribute?: string;
  description: string;
}

/**
 * The platform's tables by name, filled by the assembly (functions/tables.ts) through declaration merging: the kernel
 * checks table names at compile time without knowing which tables exist.
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by declaration merging above the kernel, which a type alias cannot take
export interface TableRegistry {}

export type TableName = keyof TableRegistry & string;

export const keyName = (attribute: KeyAttribute) => (typeof attribute === 'string' ? attribute : attribute.name);
export const keyType = (attribute: KeyAttribute): 'S' | 'N' => (typeof attribute === 'string' ? 'S' : 'N');
