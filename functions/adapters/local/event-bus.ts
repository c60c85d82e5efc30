// Local stand-in for EventBridge: a plain pipe. It knows no consumer; the local runtime (bin/local.ts) attaches the
// bus consumers of functions/consumers.ts as rules, with the patterns lib/bus-consumers.ts deploys.
import { type BusEnvelope, type BusEvent, type BusRulePattern, busEnvelope, matchesRule } from '#platform/bus-envelope.js';
import { newId } from '#platform/ids.js';
import type { EventPublisher, PlatformEventInput } from '#platform/ports.js';

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

/** Hands the event to every listener and matching target on the next turn; settles once each of them has. */
function dispatch(event: PlatformEventInput): { eventId: string; handled: Promise<void> } {
  const delivered = { ...event, id: typeof event.id === 'string' ? event.id : newId('evt') };
  const envelope = busEnvelope(delivered);
  const handled = new Promise<void>((settled) =>
    setImmediate(() => {
      const deliveries = [
        ...listeners.map((listener) => listener(delivered).catch((error: unknown) => console.error('event listener failed', error))),
        ...rules
          .filter((rule) => matchesRule(rule.pattern, envelope))
          .map((rule) => rule.target(envelope).catch((error: unknown) => console.error('rule target failed', error))),
      ];
      void Promise.all(deliveries).then(() => settled());
    }),
  );
  return { eventId: delivered.id, handled };
}

/** Delivery is asynchronous, as on AWS, and a failing listener or target does not stop the others. */
export const inProcessBus: EventPublisher & {
  deliver(event: PlatformEventInput): Promise<{ eventId: string }>;
  subscribe(listener: Listener): () => void;
  attachRule(pattern: BusRulePattern, target: RuleTarget): () => void;
} = {
  async publish(event) {
    return { eventId: dispatch(event).eventId };
  },
  /** Publishes and resolves once every listener and target has handled the event (a rule's retries included). */
  async deliver(event) {
    const { eventId, handled } = dispatch(event);
    await handled;
    return { eventId };
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
