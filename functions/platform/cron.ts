// The interface's cron: exactly five fields (minute 0-59, hour 0-23, day of month 1-31, month 1-12, day of week
// 0-6 with Sunday 0), special characters `*` `,` `-` `/` only, UTC. Shared by script schedules and flows. Beyond the
// interface, as every Unix cron: day names SUN-SAT and month names JAN-DEC, in any case, wherever a number goes.
import { ValidationError } from './errors.js';

export const cronFields = [
  { name: 'minute', min: 0, max: 59 },
  { name: 'hour', min: 0, max: 23 },
  { name: 'dayOfMonth', min: 1, max: 31 },
  { name: 'month', min: 1, max: 12 },
  { name: 'dayOfWeek', min: 0, max: 6 },
] as const;

export type CronFieldName = (typeof cronFields)[number]['name'];

export interface CronSchedule {
  expression: string;
  /** Allowed values of each field, ascending. */
  values: Record<CronFieldName, number[]>;
  /** Both day fields restricted: a day matches when either does (as in every Unix cron). */
  dayOr: boolean;
  restricted: Record<CronFieldName, boolean>;
}

const names: Partial<Record<CronFieldName, readonly string[]>> = {
  month: ['JAN', 'FEB', 'MAR', 'APR', 'MAY', 'JUN', 'JUL', 'AUG', 'SEP', 'OCT', 'NOV', 'DEC'],
  dayOfWeek: ['SUN', 'MON', 'TUE', 'WED', 'THU', 'FRI', 'SAT'],
};

/** A field's names as their numbers (MON-FRI: 1-5); an unknown name stays, and is refused as not a number. */
function numbered(text: string, spec: (typeof cronFields)[number]): string {
  const list = names[spec.name];
  if (!list) return text;
  return text.replace(/[a-z]{3}/gi, (name) => {
    const index = list.indexOf(name.toUpperCase());
    return index < 0 ? name : String(index + spec.min);
  });
}

const item = /^(\*|\d+(?:-\d+)?)(?:\/(\d+))?$/;

function refuse(input: { field: string; expression: string }, cronField: string, cronValue: string, message: string): never {
  throw new ValidationError(input.field, input.expression, `${input.field}: ${message}`, { cronExpression: input.expression, cronField, cronValue });
}

function parseField(input: { field: string; expression: string }, text: string, spec: (typeof cronFields)[number]): number[] {
  const values = new Set<number>();
  for (const part of text.split(',')) {
    const match = item.exec(numbered(part, spec));
    if (!match) refuse(input, spec.name, part, `${spec.name} "${part}" is not a number, range, * or step (allowed: * , - /)`);
    const [, base, stepText] = match;
    const step = stepText === undefined ? 1 : Number(stepText);
    if (step === 0) refuse(input, spec.name, part, `${spec.name} "${part}" has step 0`);
    let [from, to] = base === '*' ? [spec.min, spec.max] : (base!.split('-').map(Number) as [number, number?]);
    // `n/step` runs from n to the end of the field, as in Vixie cron and AWS.
    to ??= stepText === undefined ? from : spec.max;
    for (const bound of [from, to]) {
      if (bound < spec.min || bound > spec.max) refuse(input, spec.name, part, `${spec.name} ${bound} is out of range ${spec.min}-${spec.max}`);
    }
    if (from > to) refuse(input, spec.name, part, `${spec.name} range ${from}-${to} runs backwards`);
    for (let value = from; value <= to; value += step) values.add(value);
  }
  return [...values].sort((a, b) => a - b);
}

/** Validates and parses; a bad expression is VALIDATION_ERROR with `field`, `value` and the offending cron field. */
export function parseCron(expression: unknown, field = 'cronExpression'): CronSchedule {
  if (typeof expression !== 'string') throw new ValidationError(field, expression ?? null, `${field} must be a cron expression string`);
  const input = { field, expression };
  const parts = expression.trim().split(/\s+/);
  if (parts.length !== 5) {
    throw new ValidationError(
      field,
      expression,
      `${field}: a cron expression has exactly 5 fields (minute hour day-of-month month day-of-week), got ${expression.trim() ? parts.length : 0}`,
      {
        cronExpression: expression,
      },
    );
  }
  const values = {} as Record<CronFieldName, number[]>;
  const restricted = {} as Record<CronFieldName, boolean>;
  cronFields.forEach((spec, index) => {
    values[spec.name] = parseField(input, parts[index]!, spec);
    restricted[spec.name] = values[spec.name].length !== spec.max - spec.min + 1;
  });
  return { expression: parts.join(' '), values, restricted, dayOr: restricted.dayOfMonth && restricted.dayOfWeek };
}

/** Does the schedule fire in the UTC minute of `date`? */
export function cronMatches(schedule: CronSchedule, date: Date): boolean {
  const { values, restricted } = schedule;
  const has = (name: CronFieldName, value: number) => values[name].includes(value);
  if (!has('minute', date.getUTCMinutes()) || !has('hour', date.getUTCHours()) || !has('month', date.getUTCMonth() + 1)) return false;
  const dom = has('dayOfMonth', date.getUTCDate());
  const dow = has('dayOfWeek', date.getUTCDay());
  if (schedule.dayOr) return dom || dow;
  return (restricted.dayOfMonth ? dom : true) && (restricted.dayOfWeek ? dow : true);
}

/** Ascending values as a compact list: [1,2,3,5] -> "1-3,5". */
function compactList(values: number[]): string {
  const runs: string[] = [];
  for (let start = 0; start < values.length; ) {
    let end = start;
    while (end + 1 < values.length && values[end + 1] === values[end]! + 1) end++;
    runs.push(end === start ? String(values[start]) : `${values[start]}-${values[end]}`);
    start = end + 1;
  }
  return runs.join(',');
}

/**
 * EventBridge Scheduler's six-field form: day of week 1-7 with SUN=1, `?` in one of the day fields, year `*`.
 * AWS cannot say "this day of month OR this weekday"; then the schedule fires at the matching minutes of
 * every day and `filter` tells the runner to check the five-field expression itself.
 */
export function toEventBridgeCron(schedule: CronSchedule): { expression: string; filter: boolean } {
  const { values, restricted } = schedule;
  const field = (name: CronFieldName) => (restricted[name] ? compactList(values[name]) : '*');
  const [dayOfMonth, dayOfWeek] = schedule.dayOr
    ? ['*', '?']
    : restricted.dayOfWeek
      ? ['?', compactList(values.dayOfWeek.map((day) => day + 1))]
      : [field('dayOfMonth'), '?'];
  return { expression: `cron(${field('minute')} ${field('hour')} ${dayOfMonth} ${field('month')} ${dayOfWeek} *)`, filter: schedule.dayOr };
}

/** A schedule firing (see SchedulerPort) is due unless it carries a `cronFilter` that its minute does not match. */
export function firingIsDue(firing: { cronFilter?: unknown; scheduledTime?: unknown }): boolean {
  if (typeof firing.cronFilter !== 'string') return true;
  const at = typeof firing.scheduledTime === 'string' ? new Date(firing.scheduledTime) : new Date(Number.NaN);
  return !Number.isNaN(at.getTime()) && cronMatches(parseCron(firing.cronFilter), at);
}
