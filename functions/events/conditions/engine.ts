// The condition engine shared by script subscriptions and flows: a dialect names its operators and groups,
// the engine validates a tree once (operators, value types, depth, count, sizes) and compiles it into
// one closure that evaluates an event without re-reading the tree.
import { ValidationError } from '#platform/errors.js';
import { type PathReader, compilePath, fieldPattern } from './paths.js';

export type Predicate = (event: unknown) => boolean;
export type Scalar = string | number | boolean | null;

/** What a leaf's `value` must be for an operator. */
export type ValueKind = 'none' | 'string' | 'number' | 'boolean' | 'scalar' | 'scalars';

export interface OperatorSpec {
  value: ValueKind;
  /** A further check of the value (a regex's safety, say); returns the problem. */
  check?: (value: never) => string | undefined;
  /** Builds the test of a field's actual value; called once per leaf at compile time. */
  build(value: never): (actual: unknown) => boolean;
}

export interface ConditionLimits {
  depth: number;
  /** Leaf conditions `{field, operator, value}` per tree; groups do not count. */
  count: number;
  fieldLength: number;
  valueLength: number;
  listItems: number;
}

export interface Dialect {
  name: string;
  /** Group operator names and what they mean, e.g. `{and: 'and', or: 'or'}` or `{AND: 'and', OR: 'or'}`. */
  groups: Record<string, 'and' | 'or'>;
  operators: Record<string, OperatorSpec>;
  /** Maps a field name to its dotted path (aliases); identity when absent. */
  field?: (name: string) => string;
  limits?: Partial<ConditionLimits>;
}

const otherSpelling = (name: string) =>
  name.includes('_') ? name.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase()) : name.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`);

/**
 * The interface spells the script operators in snake case (`starts_with`) and the flow operators in camel case
 * (`startsWith`); clients mix them up, so every dialect takes both spellings of each of its operators.
 */
export function withBothSpellings(operators: Record<string, OperatorSpec>): Record<string, OperatorSpec> {
  return Object.fromEntries(
    Object.entries(operators).flatMap(([name, spec]) => [
      [name, spec],
      [otherSpelling(name), spec],
    ]),
  );
}

/** Depth 5, 50 conditions, field names 100 characters, values 1,000 characters. */
export const defaultLimits: ConditionLimits = { depth: 5, count: 50, fieldLength: 100, valueLength: 1000, listItems: 100 };

const isRecord = (value: unknown): value is Record<string, unknown> => value !== null && typeof value === 'object' && !Array.isArray(value);
const isScalar = (value: unknown): value is Scalar =>
  value === null || typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value));

const kindProblem: Record<ValueKind, (value: unknown) => string | undefined> = {
  // An explicit null says the same as no value.
  none: (value) => (value === undefined || value === null ? undefined : 'takes no value'),
  string: (value) => (typeof value === 'string' ? undefined : 'needs a string value'),
  number: (value) => (typeof value === 'number' && Number.isFinite(value) ? undefined : 'needs a number value'),
  boolean: (value) => (typeof value === 'boolean' ? undefined : 'needs a boolean value'),
  scalar: (value) => (isScalar(value) ? undefined : 'needs a string, number, boolean or null value'),
  scalars: (value) =>
    Array.isArray(value) && value.length > 0 && value.every(isScalar) ? undefined : 'needs a non-empty array of strings, numbers, booleans or nulls',
};

interface Walk {
  dialect: Dialect;
  limits: ConditionLimits;
  count: number;
}

const and = (parts: Predicate[]): Predicate => (parts.length === 1 ? parts[0]! : (event) => parts.every((part) => part(event)));
const or = (parts: Predicate[]): Predicate => (parts.length === 1 ? parts[0]! : (event) => parts.some((part) => part(event)));

function checkValue(walk: Walk, path: string, spec: OperatorSpec, operator: string, value: unknown): void {
  const problem = kindProblem[spec.value](value) ?? (spec.check as ((value: unknown) => string | undefined) | undefined)?.(value);
  if (problem) throw new ValidationError(`${path}.value`, value ?? null, `${path}: operator ${operator} ${problem}`);
  const { valueLength, listItems } = walk.limits;
  const strings = Array.isArray(value) ? value : [value];
  if (Array.isArray(value) && value.length > listItems)
    throw new ValidationError(`${path}.value`, value.length, `${path}: at most ${listItems} values in a list`);
  if (strings.some((item) => typeof item === 'string' && item.length > valueLength)) {
    throw new ValidationError(`${path}.value`, value, `${path}: a condition value has at most ${valueLength} characters`);
  }
}

function compileLeaf(walk: Walk, node: Record<string, unknown>, path: string): Predicate {
  // The interface's 50 conditions per tree are leaf conditions: a group is not a condition, and groups are bounded by the depth.
  if (++walk.count > walk.limits.count) throw new ValidationError(path, walk.count, `more than ${walk.limits.count} conditions in one tree`);
  const unknown = Object.keys(node).find((key) => key !== 'field' && key !== 'operator' && key !== 'value');
  if (unknown)
    throw new ValidationError(`${path}.${unknown}`, node[unknown] ?? null, `${path}: unknown key ${unknown} in a condition {field, operator, value}`);
  const { field, operator, value } = node;
  const spec = typeof operator === 'string' && Object.hasOwn(walk.dialect.operators, operator) ? walk.dialect.operators[operator]! : undefined;
  if (!spec) {
    throw new ValidationError(`${path}.operator`, operator ?? null, `${path}: unknown operator; use one of ${Object.keys(walk.dialect.operators).join(', ')}`);
  }
  if (typeof field !== 'string' || field.length === 0 || field.length > walk.limits.fieldLength || !fieldPattern.test(field)) {
    throw new ValidationError(`${path}.field`, field ?? null, `${path}: field must be a dotted path of at most ${walk.limits.fieldLength} characters`);
  }
  checkValue(walk, path, spec, operator as string, value);
  const read: PathReader = compilePath(walk.dialect.field ? walk.dialect.field(field) : field);
  const test = (spec.build as (value: unknown) => (actual: unknown) => boolean)(value);
  return (event) => test(read(event));
}

function compileNode(walk: Walk, node: unknown, path: string, depth: number): Predicate {
  if (depth > walk.limits.depth) throw new ValidationError(path, depth, `condition tree deeper than ${walk.limits.depth} levels`);
  if (!isRecord(node))
    throw new ValidationError(path, node ?? null, `${path}: a condition is an object {field, operator, value} or a group {operator, conditions}`);
  if (!('conditions' in node)) return compileLeaf(walk, node, path);
  const unknown = Object.keys(node).find((key) => key !== 'operator' && key !== 'conditions');
  if (unknown) throw new ValidationError(`${path}.${unknown}`, node[unknown] ?? null, `${path}: unknown key ${unknown} in a group {operator, conditions}`);
  const kind = typeof node.operator === 'string' && Object.hasOwn(walk.dialect.groups, node.operator) ? walk.dialect.groups[node.operator] : undefined;
  if (!kind)
    throw new ValidationError(
      `${path}.operator`,
      node.operator ?? null,
      `${path}: a group's operator is one of ${Object.keys(walk.dialect.groups).join(', ')}`,
    );
  if (!Array.isArray(node.conditions) || node.conditions.length === 0) {
    throw new ValidationError(`${path}.conditions`, node.conditions ?? null, `${path}: a group needs a non-empty conditions array`);
  }
  const parts = node.conditions.map((child, index) => compileNode(walk, child, `${path}.conditions.${index}`, depth + 1));
  return kind === 'and' ? and(parts) : or(parts);
}

const startWalk = (dialect: Dialect): Walk => ({ dialect, limits: { ...defaultLimits, ...dialect.limits }, count: 0 });

/** A list of conditions combined with AND (script subscriptions); an empty list matches every event. */
export function compileConditionList(conditions: unknown, dialect: Dialect, field = 'conditions'): Predicate {
  if (!Array.isArray(conditions)) throw new ValidationError(field, conditions ?? null, `${field} must be an array of conditions`);
  const walk = startWalk(dialect);
  const parts = conditions.map((node, index) => compileNode(walk, node, `${field}.${index}`, 1));
  return parts.length === 0 ? () => true : and(parts);
}

/** One root node, leaf or group (flows' `rootCondition`). */
export function compileConditionTree(root: unknown, dialect: Dialect, field = 'conditions'): Predicate {
  return compileNode(startWalk(dialect), root, field, 1);
}
