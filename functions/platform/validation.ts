// Input validation: zod's verdict as the platform's VALIDATION_ERROR, with details.field and details.value.
import type { z } from 'zod';
import { ValidationError } from './errors.js';
import { maxInputDepth, nestsDeeperThan } from './json-bounds.js';

const valueAt = (source: unknown, path: PropertyKey[]) =>
  path.reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined), source);

/** The first zod issue as VALIDATION_ERROR with `details.field` and `details.value`, all issues listed. */
export function zodToValidationError(error: z.ZodError, source: unknown): ValidationError {
  const issues = error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const path = keys.length ? [...issue.path, keys[0]!] : issue.path;
    return { field: path.join('.') || 'body', path, message: issue.message };
  });
  const first = issues[0]!;
  const message = first.message.startsWith('Unrecognized key') ? `unknown field ${first.field}` : `${first.field}: ${first.message}`;
  return new ValidationError(first.field, valueAt(source, first.path) ?? null, message, {
    issues: issues.map(({ field, message: text }) => ({ field, message: text })),
  });
}

export function parseInput<S extends z.ZodType>(schema: S, source: unknown): z.output<S> {
  const result = schema.safeParse(source);
  if (!result.success) throw zodToValidationError(result.error, source);
  return result.data;
}

/** JSON text to a value nested at most maxInputDepth levels; anything else is VALIDATION_ERROR on `field`. */
export function parseBoundedJson(raw: string, field: string): unknown {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (error) {
    throw new ValidationError(field, raw, `malformed JSON ${field}: ${(error as Error).message}`);
  }
  if (nestsDeeperThan(parsed, maxInputDepth)) {
    throw new ValidationError(field, null, `${field} nests deeper than ${maxInputDepth} levels`, { maxDepth: maxInputDepth });
  }
  return parsed;
}
