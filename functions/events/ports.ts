// What the events area needs from the outside, as narrow ports: the scripts area (run a script, who owns
// it, is it deployed), its own stores, and the delivery ledger that de-duplicates retried deliveries.
import type { EventObject } from '#platform/event-object.js';

export interface ScriptTrigger {
  type: 'event' | 'schedule' | 'webhook';
  /** The subscription, schedule or webhook that fired. */
  source: string;
  /** The event type, for event-triggered runs. */
  event?: string;
}

export interface ScriptRunRequest {
  scriptId: string;
  userId: string;
  data: unknown;
  trigger: ScriptTrigger;
}

export interface ScriptPort {
  /** Owner and deployment state of a script; undefined when it does not exist. */
  describe(scriptId: string): Promise<{ userId: string; deployed: boolean } | undefined>;
  /**
   * Runs the deployed script as `userId` and records the execution. Refuses with NOT_FOUND a script that is gone
   * or not the user's, with CONFLICT one that is not deployed, and with the limit's code a run over a limit.
   */
  run(request: ScriptRunRequest): Promise<{ executionId: string; status: string }>;
  /** A one-shot of the scripts' run queues came (a throttle window opened, a queued run's queueTtl passed). */
  wakeRunQueue(detail: Record<string, unknown>): Promise<void>;
}

/** A subscription as the dispatcher sees it through the index. */
export interface ActiveSubscription {
  subscriptionId: string;
  scriptId: string;
  userId: string;
  eventType: string;
  conditions: unknown[];
  /** Changes with every update, so compiled conditions are cached per revision. */
  updatedAt: string;
}

export interface SubscriptionIndex {
  /** The enabled subscriptions of `userId` to `eventType`, read consistently. */
  active(userId: string, eventType: string): Promise<ActiveSubscription[]>;
}

export type DeliveryOutcome =
  | { result: 'executed'; executionId: string; status: string }
  | { result: 'skipped'; reason: string }
  | { result: 'refused'; code: string; reason: string };

/** What one delivery of an event made: a subscribed script's run, or a waiting run the event resumed. */
export interface HistoryDelivery {
  /** Null for a run's `waitForEvent` wait (`wait` names it). */
  subscriptionId: string | null;
  scriptId: string | null;
  /** The wait of the run (`executionId`) the event resumed. */
  wait?: string;
  result: DeliveryOutcome['result'];
  executionId: string | null;
  status: string | null;
  code: string | null;
  reason: string | null;
  at: string;
}

/** The user's event history: every event the dispatcher receives, and what each subscribed script made of it. */
export interface EventHistory {
  recordEvent(event: EventObject): Promise<void>;
  recordDelivery(event: EventObject, delivery: HistoryDelivery): Promise<void>;
}

export interface DeliveryLedger {
  /** Claims a delivery; undefined when it was done already or another worker holds a live claim. */
  claim(deliveryId: string): Promise<string | undefined>;
  complete(deliveryId: string, token: string, outcome: DeliveryOutcome): Promise<void>;
  /** Gives a claim back after an infrastructure failure, so the retry of the whole event can take it. */
  release(deliveryId: string, token: string): Promise<void>;
}

export interface WebhookRecord {
  webhookId: string;
  scriptId: string;
  userId: string;
  name: string;
  enabled: boolean;
  createdAt: string;
}

export interface ScheduleRecord {
  scheduleId: string;
  scriptId: string;
  userId: string;
  name: string;
  cronExpression: string;
  enabled: boolean;
  data: Record<string, unknown>;
  createdAt: string;
}

export interface TriggerLookup {
  getWebhook(webhookId: string): Promise<WebhookRecord | undefined>;
  getSchedule(scheduleId: string): Promise<ScheduleRecord | undefined>;
  /** Stops a schedule for good: its firings and its record. Removing one already gone is not an error. */
  retireSchedule(scheduleId: string): Promise<void>;
}
