// What the platform bus carries, as EventBridge delivers it to a rule's target, and the rule patterns of
// functions/consumers.ts: lib/bus-consumers.ts writes them into EventBridge rules, the local bus matches them itself.
import type { EventBridgeEvent } from 'aws-lambda';
import type { PlatformEventInput } from './ports.js';

export type BusEvent = PlatformEventInput & { id: string };
export type BusEnvelope = EventBridgeEvent<string, BusEvent>;

/** The namespace of the platform's own deliveries (schedule firings, webhooks, retries); users cannot publish in it. */
export const internalTypePrefix = 'platform.';

/**
 * An EventBridge event pattern, restricted to what the platform's rules use: a prefix on `source`, and the
 * detail types a consumer takes: every user event type if it takes user events, plus the internal types named for it.
 */
export interface BusRulePattern {
  source: Array<{ prefix: string }>;
  'detail-type': Array<{ 'anything-but': { prefix: string } } | string>;
}

export const rulePattern = (consumer: { sourcePrefix: string; userEvents: boolean; internalTypes: readonly string[] }): BusRulePattern => ({
  source: [{ prefix: consumer.sourcePrefix }],
  'detail-type': [...(consumer.userEvents ? [{ 'anything-but': { prefix: internalTypePrefix } }] : []), ...consumer.internalTypes],
});

const matchesType = (type: string) => (value: BusRulePattern['detail-type'][number]) =>
  typeof value === 'string' ? value === type : !type.startsWith(value['anything-but'].prefix);

/** The same matching EventBridge does for the patterns above. */
export const matchesRule = (pattern: BusRulePattern, envelope: Pick<BusEnvelope, 'source' | 'detail-type'>) =>
  pattern.source.some(({ prefix }) => envelope.source.startsWith(prefix)) && pattern['detail-type'].some(matchesType(envelope['detail-type']));

/** The envelope EventBridge builds from a PutEvents entry with Source `platform.<source>` and DetailType `<type>`. */
export const busEnvelope = (event: BusEvent, time = new Date().toISOString()): BusEnvelope => ({
  version: '0',
  id: event.id,
  'detail-type': event.type,
  source: `platform.${event.source}`,
  account: '000000000000',
  time,
  region: 'local',
  resources: [],
  detail: event,
});
