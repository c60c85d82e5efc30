import { describe, expect, it } from 'vitest';
import { cronMatches, firingIsDue, parseCron, toEventBridgeCron } from '../../functions/platform/cron.js';

type Refusal = [expression: unknown, cronField: string | undefined, cronValue: string | undefined];

// Wrong field count, value out of range, step 0; and the syntax of Flows/cron.
const refusals: Refusal[] = [
  ['* * * *', undefined, undefined],
  ['* * * * * *', undefined, undefined],
  ['', undefined, undefined],
  ['60 * * * *', 'minute', '60'],
  ['* 24 * * *', 'hour', '24'],
  ['* * 0 * *', 'dayOfMonth', '0'],
  ['* * 32 * *', 'dayOfMonth', '32'],
  ['* * * 13 *', 'month', '13'],
  ['* * * 0 *', 'month', '0'],
  ['* * * * 7', 'dayOfWeek', '7'],
  ['*/0 * * * *', 'minute', '*/0'],
  ['0 1-5/0 * * *', 'hour', '1-5/0'],
  ['5-1 * * * *', 'minute', '5-1'],
  ['0 9 * * MOO', 'dayOfWeek', 'MOO'],
  ['0 9 * MON *', 'month', 'MON'],
  ['0 9 ? * 1', 'dayOfMonth', '?'],
  ['0 9 L * *', 'dayOfMonth', 'L'],
  ['1,,2 * * * *', 'minute', ''],
  ['-1 * * * *', 'minute', '-1'],
];

describe('events: cron validation', () => {
  it.each(refusals)('refuses %j with VALIDATION_ERROR details {field, value, cronField}', (expression, cronField, cronValue) => {
    // Prepare
    const parse = () => parseCron(expression);
    // Act
    let error: unknown;
    try {
      parse();
    } catch (caught) {
      error = caught;
    }
    // Assess
    expect(error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'cronExpression', value: expression, cronExpression: expression } });
    if (cronField) expect(error).toMatchObject({ details: { cronField, cronValue } });
  });

  it('refuses a value that is not a string', () => {
    // Prepare
    const parse = () => parseCron(5, 'schedule');
    // Act / Assess
    expect(parse).toThrow(expect.objectContaining({ code: 'VALIDATION_ERROR', details: expect.objectContaining({ field: 'schedule', value: 5 }) }));
  });

  it.each([
    ['*/15 * * * *', { minute: [0, 15, 30, 45] }],
    ['0 9-17/4 * * 1-5', { hour: [9, 13, 17], dayOfWeek: [1, 2, 3, 4, 5] }],
    ['5,10-12 0 1,15 */6 0', { minute: [5, 10, 11, 12], dayOfMonth: [1, 15], month: [1, 7], dayOfWeek: [0] }],
    ['30/10 * * * *', { minute: [30, 40, 50] }],
    ['0 9 * * MON-FRI', { dayOfWeek: [1, 2, 3, 4, 5] }],
    ['0 9 * jan,Dec sun,SAT', { month: [1, 12], dayOfWeek: [0, 6] }],
  ])('parses %s', (expression, expected) => {
    // Act
    const { values } = parseCron(expression);
    // Assess
    expect(values).toMatchObject(expected);
  });
});

describe('events: cron matching in UTC', () => {
  it('matches weekday and time fields', () => {
    // Prepare
    const weekdayMornings = parseCron('30 9 * * 1-5');
    // Act / Assess
    expect(cronMatches(weekdayMornings, new Date('2026-03-02T09:30:00Z'))).toBe(true); // Monday
    expect(cronMatches(weekdayMornings, new Date('2026-03-01T09:30:00Z'))).toBe(false); // Sunday
    expect(cronMatches(weekdayMornings, new Date('2026-03-02T09:31:00Z'))).toBe(false);
  });

  it('fires when either day field matches if both are restricted, as Unix cron does', () => {
    // Prepare
    const firstOrSunday = parseCron('0 0 1 * 0');
    // Act / Assess
    expect(cronMatches(firstOrSunday, new Date('2026-03-01T00:00:00Z'))).toBe(true); // the 1st, also a Sunday
    expect(cronMatches(firstOrSunday, new Date('2026-04-01T00:00:00Z'))).toBe(true); // the 1st, a Wednesday
    expect(cronMatches(firstOrSunday, new Date('2026-03-08T00:00:00Z'))).toBe(true); // a Sunday
    expect(cronMatches(firstOrSunday, new Date('2026-03-09T00:00:00Z'))).toBe(false);
  });
});

describe('events: EventBridge Scheduler expressions', () => {
  it.each([
    ['*/5 * * * *', 'cron(0,5,10,15,20,25,30,35,40,45,50,55 * * * ? *)', false],
    ['0 9 * * *', 'cron(0 9 * * ? *)', false],
    ['0 9 * * 1-5', 'cron(0 9 ? * 2-6 *)', false],
    ['0 0 * * 0', 'cron(0 0 ? * 1 *)', false],
    ['0 0 * * 6,0', 'cron(0 0 ? * 1,7 *)', false],
    ['15 3 1,15 * *', 'cron(15 3 1,15 * ? *)', false],
    ['0 12 * 1-3 *', 'cron(0 12 * 1-3 ? *)', false],
    ['0 0 13 * 5', 'cron(0 0 * * ? *)', true],
  ])('converts %s to %s', (five, six, filter) => {
    // Act
    const converted = toEventBridgeCron(parseCron(five));
    // Assess
    expect(converted).toEqual({ expression: six, filter });
  });

  it('lets the runner drop the per-day firings the five-field expression does not match', () => {
    // Prepare
    const firing = { cronFilter: '0 0 13 * 5' };
    // Act
    const fridayThe6th = firingIsDue({ ...firing, scheduledTime: '2026-03-06T00:00:00Z' });
    const the13th = firingIsDue({ ...firing, scheduledTime: '2026-03-13T00:00:00Z' });
    const saturday = firingIsDue({ ...firing, scheduledTime: '2026-03-07T00:00:00Z' });
    const unfiltered = firingIsDue({ scheduledTime: '2026-03-07T00:00:00Z' });
    // Assess
    expect([fridayThe6th, the13th, saturday, unfiltered]).toEqual([true, true, false, true]);
  });
});
