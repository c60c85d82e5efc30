// The sample events of events/ (one per type), as posted and as the dispatcher sees them.
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { enrichEvent } from '../../functions/events/enrichment/enrich.js';
import { type EventObject, normalizeEvent } from '../../functions/platform/event-object.js';

const folder = fileURLToPath(new URL('../../events/', import.meta.url));

export const sampleFiles = readdirSync(folder)
  .filter((name) => name.endsWith('.json'))
  .sort();

export const sampleInput = (type: string): Record<string, unknown> => JSON.parse(readFileSync(`${folder}${type}.json`, 'utf8')) as Record<string, unknown>;

/** Normalised and enriched, as delivered to scripts. */
export function sampleEvent(type: string, userId = 'usr_sample'): EventObject {
  const now = '2026-03-02T17:00:00.000Z';
  return enrichEvent(normalizeEvent(sampleInput(type), { id: `evt_${type.replace(/\W/g, '')}`, userId, now }), now);
}
