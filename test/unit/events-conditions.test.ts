import { describe, expect, it } from 'vitest';
import { compileConditionList, compileConditionTree } from '../../functions/events/conditions/engine.js';
import { scriptDialect, scriptOperators } from '../../functions/events/conditions/script-dialect.js';
import { sampleEvent } from '../support/event-samples.js';

const chat = sampleEvent('chatapp.message');
const mail = sampleEvent('mailapp.email_received');
const calendar = sampleEvent('calendarapp.event_created');
const voice = sampleEvent('voice.call_ended');
const payment = sampleEvent('payment.completed');
const samples = { chat, mail, calendar, voice, payment };

type Case = [operator: string, field: string, value: unknown, sample: keyof typeof samples, expected: boolean];

// Every script operator of the interface, each against the events/ samples, matching and not matching.
const cases: Case[] = [
  ['equals', 'type', 'chatapp.message', 'chat', true],
  ['equals', 'actor.name', 'Dana', 'chat', false],
  ['equals', 'chatapp.isGroupChat', true, 'chat', true],
  ['equals', 'call.durationSeconds', 2580, 'voice', true],
  ['equals', 'graphId', null, 'chat', true],
  ['not_equals', 'actor.name', 'Dana Whitfield', 'chat', false],
  ['not_equals', 'actor.name', 'Someone Else', 'chat', true],
  ['not_equals', 'chatapp.chatId', 'chat-9001', 'calendar', true],
  ['contains', 'content.text', '$AAPL', 'chat', true],
  ['contains', 'content.text', 'aapl', 'chat', false],
  ['contains', 'enrichment.topics', 'finance', 'chat', true],
  ['contains', 'data.items', 'pro-plan', 'payment', true],
  ['contains', 'data.items', 'pro', 'payment', false],
  ['not_contains', 'content.text', 'TSLA', 'chat', true],
  ['not_contains', 'content.text', 'BTC', 'chat', false],
  ['not_contains', 'mailapp.subject', 'URGENT', 'chat', true],
  ['starts_with', 'content.text', 'Great earnings', 'chat', true],
  ['starts_with', 'mailapp.from.email', 'billing@', 'mail', true],
  ['starts_with', 'call.durationSeconds', '25', 'voice', false],
  ['ends_with', 'mailapp.from.email', '@globex.example', 'mail', true],
  ['ends_with', 'content.text', 'into BTC.', 'chat', true],
  ['ends_with', 'content.text', 'BTC', 'chat', false],
  ['greater_than', 'call.durationSeconds', 2000, 'voice', true],
  ['greater_than', 'enrichment.tickers.length', 1, 'chat', true],
  ['greater_than', 'crypto.priceUsd', 249, 'payment', false],
  ['greater_than', 'actor.name', 1, 'chat', false],
  ['less_than', 'enrichment.sentiment.score', 0, 'chat', false],
  ['less_than', 'enrichment.sentiment.score', 0, 'mail', true],
  ['less_than', 'content.text.length', 10, 'chat', false],
  ['greater_than_or_equal', 'crypto.priceUsd', 249, 'payment', true],
  ['greater_than_or_equal', 'crypto.priceUsd', 249.01, 'payment', false],
  ['less_than_or_equal', 'call.durationSeconds', 2580, 'voice', true],
  ['less_than_or_equal', 'call.durationSeconds', 2579, 'voice', false],
  ['exists', 'chatapp.chatId', undefined, 'chat', true],
  ['exists', 'mailapp', undefined, 'chat', false],
  ['exists', 'context', undefined, 'calendar', false],
  ['exists', 'enrichment.tickers.0.symbol', undefined, 'chat', true],
  ['not_exists', 'enrichment', undefined, 'calendar', true],
  ['not_exists', 'content.text', undefined, 'chat', false],
  ['in', 'actor.actorType', ['user', 'bot'], 'chat', true],
  ['in', 'type', ['call.started', 'call.ended'], 'chat', false],
  ['in', 'calendarapp.attendees', ['sam@acme.example', 'nobody@acme.example'], 'calendar', true],
  ['not_in', 'actor.actorType', ['bot', 'system'], 'chat', true],
  ['not_in', 'actor.actorType', ['bot', 'system'], 'voice', false],
];

describe('events: script condition operators', () => {
  it.each(cases)('%s on %s (%j) against the %s sample is %s', (operator, field, value, sample, expected) => {
    // Prepare
    const leaf = value === undefined ? { field, operator } : { field, operator, value };
    // Act
    const matches = compileConditionList([leaf], scriptDialect)(samples[sample]);
    // Assess
    expect(matches).toBe(expected);
  });

  it('covers every operator the interface names for scripts', () => {
    // Prepare
    const named = [
      'equals',
      'not_equals',
      'contains',
      'not_contains',
      'starts_with',
      'ends_with',
      'greater_than',
      'less_than',
      'greater_than_or_equal',
      'less_than_or_equal',
      'exists',
      'not_exists',
      'in',
      'not_in',
    ];
    // Act
    const tested = new Set(cases.map(([operator]) => operator));
    // Assess
    expect(Object.keys(scriptOperators)).toEqual(expect.arrayContaining(named));
    expect([...tested].sort()).toEqual([...named].sort());
  });

  // The flow spelling of each operator (the interface writes flow operators in camel case).
  const camel: Record<string, string> = {
    not_equals: 'notEquals',
    not_contains: 'notContains',
    starts_with: 'startsWith',
    ends_with: 'endsWith',
    greater_than: 'greaterThan',
    less_than: 'lessThan',
    greater_than_or_equal: 'greaterThanOrEqual',
    less_than_or_equal: 'lessThanOrEqual',
    not_exists: 'notExists',
    not_in: 'notIn',
  };

  it.each(cases.filter(([operator]) => Object.hasOwn(camel, operator)))(
    'reads %s spelled in camel case the same (%s, %j, %s sample: %s)',
    (operator, field, value, sample, expected) => {
      // Prepare
      const leaf = value === undefined ? { field, operator: camel[operator] } : { field, operator: camel[operator], value };
      // Act
      const matches = compileConditionList([leaf], scriptDialect)(samples[sample]);
      // Assess
      expect(matches).toBe(expected);
    },
  );

  it('reads numeric strings with the numeric operators', () => {
    // Prepare
    const event = { crypto: { priceUsd: '101.5' } };
    // Act
    const above = compileConditionList([{ field: 'crypto.priceUsd', operator: 'greater_than', value: 100 }], scriptDialect)(event);
    const below = compileConditionList([{ field: 'crypto.priceUsd', operator: 'less_than', value: 100 }], scriptDialect)(event);
    // Assess
    expect([above, below]).toEqual([true, false]);
  });

  it('never reads through the prototype of an object', () => {
    // Prepare
    const conditions = [{ field: 'content.constructor', operator: 'exists' }];
    // Act
    const matches = compileConditionList(conditions, scriptDialect)(chat);
    // Assess
    expect(matches).toBe(false);
  });
});

describe('events: condition lists and groups', () => {
  it('combines a list with AND and matches everything when empty', () => {
    // Prepare
    const both = [
      { field: 'type', operator: 'equals', value: 'chatapp.message' },
      { field: 'chatapp.isGroupChat', operator: 'equals', value: false },
    ];
    // Act
    const bothMatch = compileConditionList(both, scriptDialect)(chat);
    const emptyMatches = compileConditionList([], scriptDialect)(chat);
    // Assess
    expect(bothMatch).toBe(false);
    expect(emptyMatches).toBe(true);
  });

  it('reads upper-case AND / OR groups and an exists with value null as their lower-case, valueless forms', () => {
    // Prepare
    const spelled = [
      {
        operator: 'OR',
        conditions: [
          { field: 'mailapp', operator: 'exists', value: null },
          { operator: 'AND', conditions: [{ field: 'chatapp.chatId', operator: 'exists', value: null }] },
        ],
      },
    ];
    const canonical = [
      {
        operator: 'or',
        conditions: [
          { field: 'mailapp', operator: 'exists' },
          { operator: 'and', conditions: [{ field: 'chatapp.chatId', operator: 'exists' }] },
        ],
      },
    ];
    // Act
    const [spelledMatch, canonicalMatch] = [compileConditionList(spelled, scriptDialect)(chat), compileConditionList(canonical, scriptDialect)(chat)];
    // Assess
    expect(spelledMatch).toBe(true);
    expect(canonicalMatch).toBe(true);
  });

  it('nests and / or groups', () => {
    // Prepare
    const conditions = [
      {
        operator: 'or',
        conditions: [
          { field: 'type', operator: 'equals', value: 'mailapp.email_received' },
          {
            operator: 'and',
            conditions: [
              { field: 'enrichment.sentiment.label', operator: 'equals', value: 'positive' },
              { field: 'enrichment.tickers.length', operator: 'greater_than_or_equal', value: 2 },
            ],
          },
        ],
      },
    ];
    const predicate = compileConditionList(conditions, scriptDialect);
    // Act
    const results = [chat, mail, calendar].map(predicate);
    // Assess
    expect(results).toEqual([true, true, false]);
  });

  it('accepts a tree of exactly 5 levels and 50 conditions', () => {
    // Prepare
    const leaf = { field: 'type', operator: 'exists' };
    const deep = [
      { operator: 'and', conditions: [{ operator: 'and', conditions: [{ operator: 'or', conditions: [{ operator: 'and', conditions: [leaf] }] }] }] },
    ];
    const wide = Array.from({ length: 50 }, () => leaf);
    const grouped = [{ operator: 'or', conditions: wide }];
    // Act
    const deepMatches = compileConditionList(deep, scriptDialect)(chat);
    const wideMatches = compileConditionList(wide, scriptDialect)(chat);
    const groupedMatches = compileConditionList(grouped, scriptDialect)(chat);
    // Assess
    expect([deepMatches, wideMatches, groupedMatches]).toEqual([true, true, true]);
  });

  it('compiles a single root node for flows', () => {
    // Prepare
    const root = {
      operator: 'or',
      conditions: [
        { field: 'type', operator: 'equals', value: 'call.ended' },
        { field: 'call.durationSeconds', operator: 'greater_than', value: 60 },
      ],
    };
    // Act
    const matches = compileConditionTree(root, scriptDialect)(voice);
    // Assess
    expect(matches).toBe(true);
  });
});

const leaf = { field: 'type', operator: 'exists' };
const nest = (depth: number): unknown => (depth === 1 ? leaf : { operator: 'and', conditions: [nest(depth - 1)] });

type Refusal = [name: string, conditions: unknown, field: string, value: unknown];

const refusals: Refusal[] = [
  ['an unknown operator', [{ field: 'type', operator: 'matches', value: 'x' }], 'conditions.0.operator', 'matches'],
  ['a missing operator', [{ field: 'type', value: 'x' }], 'conditions.0.operator', null],
  ['a string operator given a number', [{ field: 'type', operator: 'starts_with', value: 3 }], 'conditions.0.value', 3],
  ['a numeric operator given a string', [{ field: 'crypto.priceUsd', operator: 'greater_than', value: '100' }], 'conditions.0.value', '100'],
  ['equals without a value', [{ field: 'type', operator: 'equals' }], 'conditions.0.value', null],
  ['equals given an object', [{ field: 'type', operator: 'equals', value: { a: 1 } }], 'conditions.0.value', { a: 1 }],
  ['exists given a value', [{ field: 'type', operator: 'exists', value: true }], 'conditions.0.value', true],
  ['in given a scalar', [{ field: 'type', operator: 'in', value: 'a' }], 'conditions.0.value', 'a'],
  ['in given an empty list', [{ field: 'type', operator: 'in', value: [] }], 'conditions.0.value', []],
  ['a malformed field', [{ field: 'content..text', operator: 'exists' }], 'conditions.0.field', 'content..text'],
  ['a field over 100 characters', [{ field: 'a'.repeat(101), operator: 'exists' }], 'conditions.0.field', 'a'.repeat(101)],
  ['a value over 1,000 characters', [{ field: 'type', operator: 'equals', value: 'x'.repeat(1001) }], 'conditions.0.value', `${'x'.repeat(1000)}…`],
  ['an unknown key in a leaf', [{ field: 'type', operator: 'exists', negate: true }], 'conditions.0.negate', true],
  ['an unknown group operator', [{ operator: 'xor', conditions: [leaf] }], 'conditions.0.operator', 'xor'],
  ['an empty group', [{ operator: 'and', conditions: [] }], 'conditions.0.conditions', []],
  ['a node that is not an object', ['type equals x'], 'conditions.0', 'type equals x'],
  ['a tree deeper than 5 levels', [nest(6)], `conditions.0${'.conditions.0'.repeat(5)}`, 6],
  ['more than 50 conditions', [{ operator: 'and', conditions: Array.from({ length: 51 }, () => leaf) }], 'conditions.0.conditions.50', 51],
  ['a list that is not an array', { field: 'type', operator: 'exists' }, 'conditions', { field: 'type', operator: 'exists' }],
];

describe('events: condition validation', () => {
  it.each(refusals)('refuses %s with VALIDATION_ERROR naming the field and value', (_name, conditions, field, value) => {
    // Prepare
    const compile = () => compileConditionList(conditions, scriptDialect);
    // Act
    let error: unknown;
    try {
      compile();
    } catch (caught) {
      error = caught;
    }
    // Assess
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field, value } });
  });
});
