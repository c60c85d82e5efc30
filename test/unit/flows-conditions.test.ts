import { describe, expect, it } from 'vitest';
import { compileFlowConditions, fieldAliases } from '../../functions/flows/conditions.js';
import { regexProblem } from '../../functions/flows/regex-safety.js';
import { sampleEvent } from '../support/event-samples.js';

const chat = sampleEvent('chatapp.message');
const mail = sampleEvent('mailapp.email_received');
const calendar = sampleEvent('calendarapp.event_created');
const voice = sampleEvent('voice.call_ended');
const samples = { 'chatapp.message': chat, 'mailapp.email_received': mail, 'calendarapp.event_created': calendar, 'voice.call_ended': voice };

type Case = [eventType: keyof typeof samples, field: string, operator: string, value: unknown, expected: boolean];

// Every flow operator of the interface against the events/ samples, matching and not matching, through the aliases.
const cases: Case[] = [
  ['chatapp.message', 'sender', 'equals', 'Dana Whitfield', true],
  ['chatapp.message', 'sender', 'equals', 'dana whitfield', false],
  ['chatapp.message', 'isGroupChat', 'equals', true, true],
  ['chatapp.message', 'text', 'contains', 'APPLE', true],
  ['chatapp.message', 'text', 'contains', 'tesla', false],
  ['chatapp.message', 'chatId', 'startsWith', 'chat-', true],
  ['chatapp.message', 'chatId', 'startsWith', 'room-', false],
  ['chatapp.message', 'text', 'endsWith', 'into BTC.', true],
  ['chatapp.message', 'text', 'endsWith', 'BTC', false],
  ['chatapp.message', 'timestamp', 'greaterThan', '2026-03-01T00:00:00Z', true],
  ['chatapp.message', 'timestamp', 'lessThan', '2026-03-01T00:00:00Z', false],
  ['mailapp.email_received', 'from', 'endsWith', '@globex.example', true],
  ['mailapp.email_received', 'subject', 'regex', '^URGENT:', true],
  ['mailapp.email_received', 'subject', 'regex', 'invoice$', false],
  ['mailapp.email_received', 'to', 'contains', 'OPS@acme.example', true],
  ['mailapp.email_received', 'hasAttachment', 'equals', true, true],
  ['mailapp.email_received', 'body', 'contains', 'overdue', true],
  ['calendarapp.event_created', 'attendees', 'contains', 'sam@acme.example', true],
  ['calendarapp.event_created', 'location', 'equals', 'Room 4B', true],
  ['calendarapp.event_created', 'startTime', 'greaterThan', '2026-03-05T16:00:00Z', false],
  ['voice.call_ended', 'duration', 'greaterThan', 2000, true],
  ['voice.call_ended', 'duration', 'lessThan', 60, false],
  ['voice.call_ended', 'participants', 'contains', 'maria gomez', true],
  ['voice.call_ended', 'summary', 'exists', true, true],
  ['voice.call_ended', 'recording', 'exists', true, false],
  ['voice.call_ended', 'recording', 'exists', false, true],
  ['chatapp.message', 'enrichment.tickers.0.symbol', 'equals', 'AAPL', true],
  ['chatapp.message', 'actor.actorType', 'regex', '^(user|bot)$', true],
];

describe('flows: conditions', () => {
  it.each(cases)('%s: %s %s %j is %s', (eventType, field, operator, value, expected) => {
    // Prepare
    const test = compileFlowConditions({ field, operator, value }, eventType);
    // Act
    const matched = test(samples[eventType]);
    // Assess
    expect(matched).toBe(expected);
  });

  // The subscription spelling of each flow operator (the interface writes script operators in snake case).
  const snake: Record<string, string> = { startsWith: 'starts_with', endsWith: 'ends_with', greaterThan: 'greater_than', lessThan: 'less_than' };

  it.each(cases.filter(([, , operator]) => Object.hasOwn(snake, operator)))(
    '%s: %s %s spelled in snake case reads the same (%j is %s)',
    (eventType, field, operator, value, expected) => {
      // Prepare
      const test = compileFlowConditions({ field, operator: snake[operator], value }, eventType);
      // Act
      const matched = test(samples[eventType]);
      // Assess
      expect(matched).toBe(expected);
    },
  );

  it.each([
    ['not_equals', 'sender', 'Dana Whitfield', false],
    ['notEquals', 'sender', 'Someone Else', true],
    ['not_contains', 'text', 'apple', false],
    ['notContains', 'text', 'tesla', true],
    ['greater_than_or_equal', 'timestamp', '2026-03-01T00:00:00Z', true],
    ['lessThanOrEqual', 'timestamp', '2026-03-01T00:00:00Z', false],
    ['not_exists', 'recording', undefined, true],
    ['notExists', 'text', undefined, false],
    ['in', 'sender', ['Dana Whitfield', 'Sam'], true],
    ['not_in', 'sender', ['Dana Whitfield'], false],
    ['notIn', 'sender', ['Sam'], true],
  ])('takes the subscription operator %s on %s (%j is %s)', (operator, field, value, expected) => {
    // Prepare
    const test = compileFlowConditions(value === undefined ? { field, operator } : { field, operator, value }, 'chatapp.message');
    // Act
    const matched = test(chat);
    // Assess
    expect(matched).toBe(expected);
  });

  it('names an alias for every field of the interface table', () => {
    // Prepare
    const table = {
      'chatapp.message': ['text', 'sender', 'chatId', 'isGroupChat', 'timestamp'],
      'mailapp.email_received': ['subject', 'from', 'to', 'body', 'hasAttachment', 'timestamp'],
      'calendarapp.event_created': ['summary', 'description', 'location', 'attendees', 'startTime', 'endTime'],
      'voice.call_ended': ['duration', 'participants', 'summary', 'transcript', 'timestamp'],
    };
    // Act
    const named = Object.fromEntries(Object.entries(fieldAliases).map(([type, aliases]) => [type, Object.keys(aliases)]));
    // Assess
    expect(named).toEqual(table);
  });

  it('combines nested AND and OR groups', () => {
    // Prepare
    const tree = {
      operator: 'AND',
      conditions: [
        { field: 'subject', operator: 'contains', value: 'invoice' },
        {
          operator: 'OR',
          conditions: [
            { field: 'from', operator: 'equals', value: 'boss@acme.example' },
            { field: 'hasAttachment', operator: 'equals', value: true },
          ],
        },
      ],
    };
    const unmatched = {
      ...tree,
      conditions: [tree.conditions[0], { operator: 'OR', conditions: [{ field: 'from', operator: 'equals', value: 'boss@acme.example' }] }],
    };
    // Act
    const results = [compileFlowConditions(tree, 'mailapp.email_received')(mail), compileFlowConditions(unmatched, 'mailapp.email_received')(mail)];
    // Assess
    expect(results).toEqual([true, false]);
  });

  it('reads lower-case and / or groups as AND / OR', () => {
    // Prepare
    const group = (operator: string) => ({
      operator,
      conditions: [
        { field: 'text', operator: 'contains', value: 'nothing like it' },
        { field: 'text', operator: 'exists', value: true },
      ],
    });
    // Act
    const [orMatched, andMatched] = [compileFlowConditions(group('or'), 'chatapp.message')(chat), compileFlowConditions(group('and'), 'chatapp.message')(chat)];
    // Assess
    expect([orMatched, andMatched]).toEqual([true, false]);
  });

  it('matches every event of the type with an empty root group', () => {
    // Prepare
    const test = compileFlowConditions({ operator: 'AND', conditions: [] }, 'chatapp.message');
    // Act
    const matched = test(chat);
    // Assess
    expect(matched).toBe(true);
  });

  it.each([
    ['an unknown operator', { field: 'text', operator: 'resembles', value: 'x' }, 'conditions.operator'],
    ['a half-converted spelling', { field: 'text', operator: 'starts_With', value: 'x' }, 'conditions.operator'],
    ['exists without a boolean', { field: 'text', operator: 'exists', value: 'yes' }, 'conditions.value'],
    ['greaterThan with a word', { field: 'text', operator: 'greaterThan', value: 'soon' }, 'conditions.value'],
    ['a field name over 100 characters', { field: 'a'.repeat(101), operator: 'equals', value: 'x' }, 'conditions.field'],
    ['a value over 1,000 characters', { field: 'text', operator: 'equals', value: 'x'.repeat(1001) }, 'conditions.value'],
    ['an invalid regex', { field: 'text', operator: 'regex', value: '(' }, 'conditions.value'],
    ['a regex with a backreference', { field: 'text', operator: 'regex', value: '(a)\\1' }, 'conditions.value'],
  ])('refuses %s with the field and value', (_name, root, field) => {
    // Prepare
    const compile = () => compileFlowConditions(root, 'chatapp.message');
    // Act
    const error = (() => {
      try {
        compile();
      } catch (caught) {
        return caught as { code: string; details: { field: string } };
      }
    })();
    // Assess
    expect(error?.code).toBe('VALIDATION_ERROR');
    expect(error?.details.field).toBe(field);
  });

  it('refuses a tree deeper than 5 levels and one with more than 50 conditions', () => {
    // Prepare
    let deep: unknown = { field: 'text', operator: 'contains', value: 'x' };
    for (let level = 0; level < 5; level++) deep = { operator: 'AND', conditions: [deep] };
    const wide = { operator: 'OR', conditions: Array.from({ length: 51 }, (_, index) => ({ field: 'text', operator: 'contains', value: `w${index}` })) };
    const shallow = {
      operator: 'AND',
      conditions: [
        {
          operator: 'AND',
          conditions: [{ operator: 'AND', conditions: [{ operator: 'AND', conditions: [{ field: 'text', operator: 'contains', value: 'Apple' }] }] }],
        },
      ],
    };
    // Act
    const refusals = [deep, wide].map((root) => {
      try {
        compileFlowConditions(root, 'chatapp.message');
        return undefined;
      } catch (error) {
        return (error as { code: string }).code;
      }
    });
    // Assess
    expect(refusals).toEqual(['VALIDATION_ERROR', 'VALIDATION_ERROR']);
    expect(compileFlowConditions(shallow, 'chatapp.message')(chat)).toBe(true);
  });
});

describe('flows: regex safety', () => {
  it.each(['(a)\\1', '(?=a)b', '(?<!a)b', 'x'.repeat(201), ''])('refuses %s', (pattern) => {
    expect(regexProblem(pattern)).toBeDefined();
  });

  it.each(['^URGENT:', 'invoice\\s+#\\d+', '(Mr|Mrs)?\\s?Smith', '[a-z]+@acme\\.example$', '(ab)+', 'a{2,3}(bc)?', '\\(a+\\)+'])('accepts %s', (pattern) => {
    expect(regexProblem(pattern)).toBeUndefined();
  });

  it.each([
    ['consecutive overlapping quantifiers', `${'a*'.repeat(20)}b`, 'a'.repeat(100_000)],
    ['a repeated repeating group', '(a+)+b', 'a'.repeat(100_000)],
    ['a repeated alternation', '(a|aa)*c', 'a'.repeat(100_000)],
    ['nested word groups', '^(\\w+\\s?)*!', 'ab '.repeat(30_000)],
  ])('runs %s against a long non-matching text without holding the event loop', (_name, pattern, text) => {
    // Prepare: the text is far past the tested prefix; a backtracking engine takes years on any of these.
    const test = compileFlowConditions({ field: 'text', operator: 'regex', value: pattern }, 'chatapp.message');
    const event = { ...chat, content: { ...(chat as { content: object }).content, text } };
    // Act
    const matched = test(event);
    // Assess: it returned (linear time) and found no match.
    expect(matched).toBe(false);
  });
});
