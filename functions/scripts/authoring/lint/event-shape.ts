// The fields an event-triggered script finds in `event.data` (the interface's event object), read from the events
// area's own schema so lint and the event pipeline cannot disagree.
import type { z } from 'zod';
import { EventInput } from '#platform/event-object.js';
import { namedEventTypes } from '#platform/event-types.js';

/** Known sub-fields of a field, or `open` where any field may appear (integration objects, entity, enrichment). */
type FieldShape = { fields: ReadonlySet<string> } | 'open' | 'leaf';

interface ZodDef {
  type: string;
  innerType?: z.ZodType;
  shape?: Record<string, z.ZodType>;
  catchall?: z.ZodType;
}
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: ZodDef } })._zod.def;

function shapeOf(schema: z.ZodType): FieldShape {
  let def = defOf(schema);
  while ((def.type === 'optional' || def.type === 'nullable') && def.innerType) def = defOf(def.innerType);
  if (def.type === 'object' && def.shape && def.catchall && defOf(def.catchall).type === 'never') return { fields: new Set(Object.keys(def.shape)) };
  if (def.type === 'object' || def.type === 'record' || def.type === 'never') return 'open';
  return 'leaf';
}

const topLevel = new Map(Object.entries(EventInput.shape).map(([name, schema]) => [name, shapeOf(schema as z.ZodType)]));
/** Integration objects appear on their own namespace's events; `voice.*` calls carry `call`. */
const integrations = new Set(['chatapp', 'mailapp', 'calendarapp', 'call', 'crypto']);
const integrationOf = (eventType: string) => {
  const namespace = eventType.split('.')[0]!;
  return namespace === 'voice' ? 'call' : namespace;
};

/** Why `event.data.<path>` is not on events of `eventType`, or undefined when it is (or cannot be known). */
export function eventFieldProblem(eventType: string, path: string[]): string | undefined {
  if (!(namedEventTypes as readonly string[]).includes(eventType)) return undefined;
  const [first, second] = path as [string, string | undefined];
  const shape = topLevel.get(first);
  if (!shape) return `${eventType} events have no field ${first}`;
  if (integrations.has(first) && integrationOf(eventType) !== first) return `${eventType} events carry no ${first} object`;
  if (second !== undefined && typeof shape === 'object' && !shape.fields.has(second))
    return `${first} of ${eventType} events has no field ${second} (it has ${[...shape.fields].join(', ')})`;
  return undefined;
}
