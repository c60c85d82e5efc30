// Local stand-in for EventBridge: a plain pipe. It knows no consumer; the local runtime (bin/local.ts) attaches the
// bus consumers of functions/consumers.ts as rules, with the patterns lib/bus-consumers.ts deploys.
import { type BusEnvelope, type BusEvent, type BusRulePattern, busEnvelope, matchesRule } from '#platform/bus-envelope.js';
import { newId } from '#platform/ids.js';
import type { EventPublisher } from '#platform/ports.js';

type Listener = (event: BusEvent) => Promise<void>;
type RuleTarget = (envelope: BusEnvelope) => Promise<void>;

const listeners: Listener[] = [];
const rules: Array<{ pattern: BusRulePattern; target: RuleTarget }> = [];

const detaching =
  <T>(list: T[], item: T) =>
  () => {
    const index = list.indexOf(item);
    if (index >= 0) list.splice(index, 1);
  };

/** Delivery is asynchronous, as on AWS, and a failing listener or target does not stop the others. */
export const inProcessBus: EventPublisher & { subscribe(listener: Listener): () => void; attachRule(pattern: BusRulePattern, target: RuleTarget): () => void } =
  {
    async publish(event) {
      const delivered = { ...event, id: typeof event.id === 'string' ? event.id : newId('evt') };
      const envelope = busEnvelope(delivered);
      setImmediate(() => {
        for (const listener of listeners) listener(delivered).catch((error: unknown) => console.error('event listener failed', error));
        for (const rule of rules)
          if (matchesRule(rule.pattern, envelope)) rule.target(envelope).catch((error: unknown) => console.error('rule target failed', error));
      });
      return { eventId: delivered.id };
    },
    /** Every event's detail, for taps (tests, benchmarks). */
    subscribe(listener) {
      listeners.push(listener);
      return detaching(listeners, listener);
    },
    /** A rule: the envelopes whose source matches `pattern` go to `target`. */
    attachRule(pattern, target) {
      const rule = { pattern, target };
      rules.push(rule);
      return detaching(rules, rule);
    },
  };
