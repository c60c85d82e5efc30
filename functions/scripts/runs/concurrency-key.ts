// `config.concurrency.key`: a dotted path into a run's `event.data` whose value groups runs (a customer, a tenant),
// so that at most `limit` runs of one value run at once. A value counts per run user unless the script's owner made
// the key global (`config.concurrency.scope`): another user of an installed script cannot hold a customer's runs back.
import type { ScriptConfig } from '../model.js';
import { type SlotClaim, noKeyValue } from './run-slots.js';

/** The value at `path` in `data`: a string, number or boolean as text; anything else is the shared "no value". */
export function concurrencyKeyValue(path: string, data: unknown): string {
  let value: unknown = data;
  for (const segment of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, segment)) return noKeyValue;
    value = (value as Record<string, unknown>)[segment];
  }
  return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean' ? String(value) : noKeyValue;
}

/** The key part of a run's slot claim: its value, and the group it counts in (the run user's own, or everyone's). */
export function concurrencyClaim(concurrency: NonNullable<ScriptConfig['concurrency']>, userId: string, data: unknown): NonNullable<SlotClaim['key']> {
  const value = concurrencyKeyValue(concurrency.key, data);
  // Arrays of one and two strings: a global value can never name a user's group.
  return { value, limit: concurrency.limit, group: JSON.stringify(concurrency.scope === 'global' ? [value] : [userId, value]) };
}
