// Which event types exist: the interface's nine names, `custom.<name>`, and names of external webhook events
// (`payment.completed`) outside the platform's own namespaces.
import * as z from 'zod';
import { namedEventTypes } from './event-type-names.js';

export { namedEventTypes };

/** A script run failed; the event goes to the run's user. */
export const executionFailedType = 'platform.execution.failed';

/** A durable run asked for an approval; the event goes to the run's user. */
export const approvalRequestedType = 'platform.approval.requested';

/**
 * The owner events: what the platform tells a user about their own runs, routed to the consumers like any event and
 * taken by subscriptions, event flows and event waits. Only the platform sends them (an approval's signed links and a
 * failure's execution must be real), so POST /events refuses them.
 */
export const ownerEventTypes: ReadonlySet<string> = new Set([executionFailedType, approvalRequestedType]);

/** Enrichment is supported on these types only; the others keep `enrichment` null. */
export const enrichedEventTypes: ReadonlySet<string> = new Set([
  'chatapp.message',
  'chatapp.command',
  'mailapp.email_received',
  'docsapp.document_updated',
  'transcript.chunk',
]);

/** Namespaces the platform owns: only the named types live there; `platform.` carries internal deliveries. */
const reservedNamespaces = new Set(['chatapp', 'mailapp', 'calendarapp', 'docsapp', 'transcript', 'voice', 'call', 'platform']);
const named: ReadonlySet<string> = new Set(namedEventTypes);

const maxTypeLength = 100;
const customType = /^custom\.[A-Za-z0-9_][A-Za-z0-9_.:-]*$/;
/** Lower-case dotted names of at least two segments, as webhook providers use: `payment.completed`, `customer.subscription.created`. */
const webhookType = /^[a-z][a-z0-9_-]*(\.[a-z0-9_][a-z0-9_-]*)+$/;

export function eventTypeProblem(type: string): string | undefined {
  if (type.length > maxTypeLength) return `an event type has at most ${maxTypeLength} characters`;
  if (named.has(type)) return undefined;
  if (ownerEventTypes.has(type)) return `${type} is sent by the platform only: subscribe to it, a flow or a run's event wait may name it`;
  if (type.startsWith('custom.')) return customType.test(type) ? undefined : 'a custom event type is custom.<name> (letters, digits, _ . : -)';
  const namespace = type.split('.')[0]!;
  if (reservedNamespaces.has(namespace))
    return `${namespace}. holds only the event types ${namedEventTypes.filter((name) => name.startsWith(`${namespace}.`)).join(', ') || 'none'}`;
  if (webhookType.test(type)) return undefined;
  return `unknown event type: use one of ${namedEventTypes.join(', ')}, a webhook event name such as payment.completed, or custom.<name>`;
}

export const EventType = z.string().superRefine((type, context) => {
  const problem = eventTypeProblem(type);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});

/** What a subscription, an event flow or a run's event wait may name: a user's event type or one of the platform's owner events. */
export const SubscribableEventType = z.string().superRefine((type, context) => {
  const problem = ownerEventTypes.has(type) ? undefined : eventTypeProblem(type);
  if (problem) context.addIssue({ code: 'custom', message: problem });
});
