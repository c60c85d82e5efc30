// Relative times ("3 min ago", "in 2 h") with the absolute local time on hover and in the element's datetime.

const units: [Intl.RelativeTimeFormatUnit, number][] = [
  ['day', 86_400_000],
  ['hour', 3_600_000],
  ['minute', 60_000],
  ['second', 1000],
];
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto', style: 'short' });

const instant = (value: unknown): Date | undefined => {
  if (value === undefined || value === null || value === '') return undefined;
  const date = new Date(value as string | number);
  return Number.isNaN(date.getTime()) ? undefined : date;
};

/** The absolute local time, or a dash. */
export const when = (value: unknown) => instant(value)?.toLocaleString() ?? '–';

/** `date` relative to `now`, in the largest unit that is at least one (a week and more: the date itself). */
export function ago(date: Date, now = Date.now()): string {
  const delta = date.getTime() - now;
  if (Math.abs(delta) >= 7 * 86_400_000) return date.toLocaleDateString();
  const [unit, size] = units.find(([, ms]) => Math.abs(delta) >= ms) ?? units[units.length - 1]!;
  return relative.format(Math.round(delta / size), unit);
}

export function Time({ value }: { value: unknown }) {
  const date = instant(value);
  if (!date) return <>–</>;
  return (
    <time dateTime={date.toISOString()} title={date.toLocaleString()}>
      {ago(date)}
    </time>
  );
}
