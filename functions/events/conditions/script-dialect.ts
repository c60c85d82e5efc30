// The interface's operators for script subscription conditions. Negations (`not_*`) hold when the field is
// absent; numeric operators also read numeric strings ("42.5"), as integration payloads often carry them.
import { type Dialect, type OperatorSpec, type Scalar, withBothSpellings } from './engine.js';

const numeric = /^-?(\d+\.?\d*|\.\d+)(e[-+]?\d+)?$/i;

export function asNumber(actual: unknown): number | undefined {
  if (typeof actual === 'number') return Number.isFinite(actual) ? actual : undefined;
  if (typeof actual === 'string' && numeric.test(actual.trim())) return Number(actual);
  return undefined;
}

export const not = (spec: OperatorSpec): OperatorSpec => ({
  value: spec.value,
  build(value: never) {
    const test = spec.build(value);
    return (actual) => !test(actual);
  },
});

const equals: OperatorSpec = { value: 'scalar', build: (value: Scalar) => (actual) => actual === value };

/** Substring of a string, or member of an array (`enrichment.topics contains "crypto"`). */
const contains: OperatorSpec = {
  value: 'scalar',
  build: (value: Scalar) => (actual) =>
    typeof actual === 'string' ? typeof value === 'string' && actual.includes(value) : Array.isArray(actual) && actual.includes(value),
};

const stringTest = (test: (actual: string, value: string) => boolean): OperatorSpec => ({
  value: 'string',
  build: (value: string) => (actual) => typeof actual === 'string' && test(actual, value),
});

const compare = (test: (actual: number, value: number) => boolean): OperatorSpec => ({
  value: 'number',
  build: (value: number) => (actual) => {
    const number = asNumber(actual);
    return number !== undefined && test(number, value);
  },
});

const exists: OperatorSpec = { value: 'none', build: () => (actual) => actual !== undefined && actual !== null };

/** The field's value is one of the list; an array field matches when any of its items is. */
export const isIn: OperatorSpec = {
  value: 'scalars',
  build: (values: Scalar[]) => {
    const set = new Set<unknown>(values);
    return (actual) => (Array.isArray(actual) ? actual.some((item) => set.has(item)) : set.has(actual));
  },
};

export const scriptOperators: Record<string, OperatorSpec> = withBothSpellings({
  equals,
  not_equals: not(equals),
  contains,
  not_contains: not(contains),
  starts_with: stringTest((actual, value) => actual.startsWith(value)),
  ends_with: stringTest((actual, value) => actual.endsWith(value)),
  greater_than: compare((actual, value) => actual > value),
  less_than: compare((actual, value) => actual < value),
  greater_than_or_equal: compare((actual, value) => actual >= value),
  less_than_or_equal: compare((actual, value) => actual <= value),
  exists,
  not_exists: not(exists),
  in: isIn,
  not_in: not(isIn),
});

/** The interface writes script groups in lower case and flow groups in upper case; either spelling is understood. */
export const scriptDialect: Dialect = { name: 'script', groups: { and: 'and', or: 'or', AND: 'and', OR: 'or' }, operators: scriptOperators };
