// What the platform bus carries, as EventBridge delivers it to a rule's target, and the rule patterns of
// functions/consumers.ts: lib/bus-consumers.ts writes them into EventBridge rules, the local bus matches them itself.
import type { EventBridgeEvent } from 'aws-lambda';
import type { PlatformEventInput } from './ports.js';

export type BusEvent = PlatformEventInput & { id: string };
export type BusEnvelope = EventBridgeEvent<string, BusEvent>;

/** An EventBridge event pattern, restricted to what the platform's rules use: a prefix on `source`. */
export interface BusRulePattern {
  source: Array<{ prefix: string }>;
}

export const rulePattern = (consumer: { sourcePrefix: string }): BusRulePattern => ({ source: [{ prefix: consumer.sourcePrefix }] });

export const matchesRule = (pattern: BusRulePattern, envelope: Pick<BusEnvelope, 'source'>) => pattern.source.some(({ prefix }) => envelope.source.startsWith(prefix));

/** The envelope EventBridge builds from a PutEvents entry with Source `platform.<source>` and DetailType `<type>`. */
export const busEnvelope = (event: BusEvent, time = new Date().toISOString()): BusEnvelope => ({
  version: '0', id: event.id, 'detail-type': event.type, source: `platform.${event.source}`, account: '000000000000', time, region: 'local', resources: [], detail: event,
});
