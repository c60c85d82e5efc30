// Date filters of listings (runs, events): ISO 8601 instants or whole days, bounded and ordered.
import * as z from 'zod';
import { IsoDate } from './schemas.js';

/** The dates a filter may name: runs and events are kept 90 days, and the bounds keep every instant within ISO 8601's years. */
const runDates = { from: '2000-01-01T00:00:00.000Z', to: '3000-01-01T00:00:00.000Z' } as const;
function withinRunDates(value: string): boolean {
  const day = value.slice(0, 10);
  const midnight = Date.parse(`${day}T00:00:00Z`);
  const at = value.length === 10 ? midnight : Date.parse(value);
  // A day that does not exist (`2026-02-30`) would otherwise roll over into the next month.
  const real = Number.isFinite(midnight) && new Date(midnight).toISOString().startsWith(day);
  return real && at >= Date.parse(runDates.from) && at < Date.parse(runDates.to);
}

/**
 * ISO 8601 date-times with any offset, or whole days (`2025-01-31`: from its first instant as startDate, through its
 * last as endDate), as UTC timestamps: the form runs and events are stored in, so the range compares as instants do.
 */
export const DateBound = (endOfDay: boolean) =>
  z
    .union([IsoDate, z.iso.date()])
    .refine(withinRunDates, `must be a date from ${runDates.from.slice(0, 4)} to ${Number(runDates.to.slice(0, 4)) - 1}`)
    .transform((value) => (value.length === 10 ? `${value}T${endOfDay ? '23:59:59.999' : '00:00:00.000'}Z` : new Date(value).toISOString()));
export const dateRange = { startDate: DateBound(false).optional(), endDate: DateBound(true).optional() };
export const ordered = (range: { startDate?: string; endDate?: string }) => !range.startDate || !range.endDate || range.startDate <= range.endDate;
export const orderedRange = { message: 'endDate must not be before startDate', path: ['endDate'] };
