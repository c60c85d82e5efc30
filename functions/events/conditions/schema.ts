// The shape of a dialect's condition tree for the OpenAPI document. The engine still validates a tree (its messages
// name the offending node and value); this only describes it, so fields that take a tree stay z.unknown().
import * as z from 'zod';
import { openApiComponents } from '#platform/schemas.js';
import { type Dialect, defaultLimits } from './engine.js';

/** Registers the dialect's recursive node (a group or a leaf) as the named shape `id`. */
export function documentConditionTree(id: string, dialect: Dialect, description: string): void {
  const limits = { ...defaultLimits, ...dialect.limits };
  const Leaf = z.object({
    field: z.string().min(1).max(limits.fieldLength).describe('a dotted path into the event object, or a field name of the event type'),
    operator: z.enum(Object.keys(dialect.operators) as [string, ...string[]]),
    value: z
      .unknown()
      .optional()
      .describe(
        `a string, number, boolean or null, at most ${limits.valueLength} characters; an array for in / not_in; none for exists in scripts and not_exists`,
      ),
  });
  // The leaf first: the document's examples show the first branch of a union.
  const Node: z.ZodType = z.union([
    Leaf,
    z.object({
      operator: z.enum(Object.keys(dialect.groups) as [string, ...string[]]),
      get conditions() {
        return z.array(Node).min(1).max(limits.count);
      },
    }),
  ]);
  openApiComponents.add(Node, { id, description: `${description} At most ${limits.depth} levels deep and ${limits.count} conditions per tree.` });
}
