// Input validation: zod's verdict as the platform's VALIDATION_ERROR, with details.field and details.value.
import type { z } from 'zod';
import { ValidationError } from './errors.js';
import { maxInputDepth, nestsDeeperThan } from './json-bounds.js';

const valueAt = (source: unknown, path: PropertyKey[]) =>
  path.reduce<unknown>((value, key) => (value !== null && typeof value === 'object' ? (value as Record<PropertyKey, unknown>)[key] : undefined), source);

/** zod's type names as a person names them: a record is an object, an int an integer. */
const typeNames: Record<string, string> = {
  record: 'an object',
  object: 'an object',
  array: 'an array',
  string: 'a string',
  number: 'a number',
  int: 'an integer',
  boolean: 'true or false',
  bigint: 'an integer',
  date: 'a date',
};

const kindOf = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : (typeNames[typeof value] ?? typeof value);

/** A wrong or missing value in words: "is required", "expected an object, got a string"; other issues as zod words them. */
function issueMessage(issue: z.core.$ZodIssue, value: unknown): string {
  if (issue.code !== 'invalid_type') return issue.message;
  if (value === undefined) return 'is required';
  return `expected ${typeNames[issue.expected] ?? issue.expected}, got ${kindOf(value)}`;
}

/** The first zod issue as VALIDATION_ERROR with `details.field` and `details.value`, all issues listed. */
export function zodToValidationError(error: z.ZodError, source: unknown): ValidationError {
  const issues = error.issues.map((issue) => {
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const path = keys.length ? [...issue.path, keys[0]!] : issue.path;
    return { field: path.join('.') || 'body', path, message: issueMessage(issue, valueAt(source, issue.path)) };
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
