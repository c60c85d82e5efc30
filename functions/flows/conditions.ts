// The interface's flow conditions as a dialect of the shared condition engine (functions/events/conditions): groups
// AND / OR, the flow operators, and per event type the field names of the interface's table as aliases of dotted
// paths into the event object; any other name is read as a dotted path.
import {
  type Dialect,
  type OperatorSpec,
  type Predicate,
  type Scalar,
  asNumber,
  compileConditionTree,
  isIn,
  not,
  withBothSpellings,
} from '#functions/events/api.js';
import { compileRegex, regexProblem } from './regex-safety.js';

/** Fields by event type. */
export const fieldAliases: Record<string, Record<string, string>> = {
  'chatapp.message': { text: 'content.text', sender: 'actor.name', chatId: 'chatapp.chatId', isGroupChat: 'chatapp.isGroupChat', timestamp: 'timestamp' },
  'mailapp.email_received': {
    subject: 'mailapp.subject',
    from: 'mailapp.from.email',
    to: 'mailapp.to',
    body: 'content.text',
    hasAttachment: 'mailapp.hasAttachments',
    timestamp: 'timestamp',
  },
  'calendarapp.event_created': {
    summary: 'calendarapp.summary',
    description: 'calendarapp.description',
    location: 'calendarapp.location',
    attendees: 'calendarapp.attendees',
    startTime: 'calendarapp.startTime',
    endTime: 'calendarapp.endTime',
  },
  'voice.call_ended': {
    duration: 'call.durationSeconds',
    participants: 'call.participants',
    summary: 'call.summary',
    transcript: 'call.transcript',
    timestamp: 'timestamp',
  },
};

const lower = (value: unknown) => (typeof value === 'string' ? value.toLowerCase() : value);

/** Case-insensitive substring of a string, or a member of an array (strings compared case-insensitively). */
const contains: OperatorSpec = {
  value: 'scalar',
  build: (value: Scalar) => {
    const wanted = lower(value);
    return (actual) => {
      if (typeof actual === 'string') return typeof wanted === 'string' && actual.toLowerCase().includes(wanted);
      return Array.isArray(actual) && actual.some((item) => lower(item) === wanted);
    };
  },
};

const stringTest = (test: (actual: string, value: string) => boolean): OperatorSpec => ({
  value: 'string',
  build: (value: string) => (actual) => typeof actual === 'string' && test(actual, value),
});

/** Numbers (numeric strings too), or ISO 8601 times when the value is one: `timestamp greaterThan "2026-01-01T00:00:00Z"`. */
const compare = (test: (difference: number) => boolean): OperatorSpec => ({
  value: 'scalar',
  check: (value: Scalar) =>
    typeof value === 'number' || (typeof value === 'string' && !Number.isNaN(Date.parse(value))) ? undefined : 'needs a number or an ISO 8601 time',
  build: (value: number | string) => {
    if (typeof value === 'number') {
      return (actual) => {
        const number = asNumber(actual);
        return number !== undefined && test(number - value);
      };
    }
    const limit = Date.parse(value);
    return (actual) => typeof actual === 'string' && !Number.isNaN(Date.parse(actual)) && test(Date.parse(actual) - limit);
  },
});

const regex: OperatorSpec = {
  value: 'string',
  check: (pattern: string) => regexProblem(pattern),
  build: (pattern: string) => {
    const matches = compileRegex(pattern);
    return (actual) => (typeof actual === 'string' || typeof actual === 'number') && matches(String(actual));
  },
};

const equals: OperatorSpec = { value: 'scalar', build: (value: Scalar) => (actual) => actual === value };
const exists: OperatorSpec = { value: 'boolean', build: (wanted: boolean) => (actual) => (actual !== undefined && actual !== null) === wanted };

/** The interface's flow operators, then the script operators it lists for subscriptions, so one tree reads the same in both. */
export const flowOperators: Record<string, OperatorSpec> = withBothSpellings({
  equals,
  contains,
  startsWith: stringTest((actual, value) => actual.startsWith(value)),
  endsWith: stringTest((actual, value) => actual.endsWith(value)),
  greaterThan: compare((difference) => difference > 0),
  lessThan: compare((difference) => difference < 0),
  exists,
  regex,
  notEquals: not(equals),
  notContains: not(contains),
  greaterThanOrEqual: compare((difference) => difference >= 0),
  lessThanOrEqual: compare((difference) => difference <= 0),
  notExists: { value: 'none', build: () => (actual) => actual === undefined || actual === null },
  in: isIn,
  notIn: not(isIn),
});

const dialects = new Map<string, Dialect>();

/** The flow dialect for one event type: its aliases resolve, dotted paths pass through. */
export function flowDialect(eventType: string): Dialect {
  let dialect = dialects.get(eventType);
  if (!dialect) {
    // Own entries only: an event type named `constructor` or `__proto__` has no aliases.
    const aliases = Object.hasOwn(fieldAliases, eventType) ? fieldAliases[eventType]! : {};
    dialect = {
      name: 'flow',
      groups: { AND: 'and', OR: 'or', and: 'and', or: 'or' },
      operators: flowOperators,
      field: (name) => (Object.hasOwn(aliases, name) ? aliases[name]! : name),
    };
    dialects.set(eventType, dialect);
  }
  return dialect;
}

const isEmptyGroup = (root: unknown) =>
  root !== null &&
  typeof root === 'object' &&
  !Array.isArray(root) &&
  Object.keys(root).length === 2 &&
  Array.isArray((root as { conditions?: unknown }).conditions) &&
  (root as { conditions: unknown[] }).conditions.length === 0 &&
  ['AND', 'OR'].includes((root as { operator?: unknown }).operator as string);

/**
 * Validates and compiles a flow's `conditions` (VALIDATION_ERROR with the offending field and value).
 * An empty root group (`{operator: AND, conditions: []}`) matches every event of the type.
 */
export function compileFlowConditions(root: unknown, eventType: string, field = 'conditions'): Predicate {
  if (isEmptyGroup(root)) return () => true;
  return compileConditionTree(root, flowDialect(eventType), field);
}
