// The dispatcher: the one consumer of the platform bus for scripts. User events are normalised, enriched,
// matched against the active subscriptions of their user and type (one indexed read, conditions compiled
// once per subscription revision) and run on the matching deployed scripts; schedule firings and webhook
// deliveries run their script. Every run is claimed first in the delivery ledger, so a retried event never
// runs a script twice, and a failure of one run neither stops the others nor loses the event.
import type { Clock } from '#platform/clock.js';
import { firingIsDue } from '#platform/cron.js';
import { AppError } from '#platform/errors.js';
import { logger } from '#platform/logger.js';
import { type Predicate, compileConditionList } from './conditions/engine.js';
import { scriptDialect } from './conditions/script-dialect.js';
import { enrichEvent } from './enrichment/enrich.js';
import { type EventObject, normalizeEvent } from './event-object.js';
import { ownerEventTypes } from './event-types.js';
import type { EventWaits } from './event-waits.js';
import { type DispatchReport, deliverAll, emptyReport } from './deliveries.js';
import { scheduleFiringType, webhookDeliverySource, webhookDeliveryType } from './internal-events.js';
import type {
  ActiveSubscription,
  DeliveryLedger,
  DeliveryOutcome,
  EventHistory,
  ScriptPort,
  ScriptTrigger,
  SubscriptionIndex,
  TriggerLookup,
} from './ports.js';
import type { MetricsPort } from '#platform/ports.js';

export interface DispatcherDeps {
  index: SubscriptionIndex;
  ledger: DeliveryLedger;
  history: EventHistory;
  scripts: ScriptPort;
  triggers: TriggerLookup;
  clock: Clock;
  metrics: MetricsPort;
  /** Durable runs waiting for their user's events (`waitForEvent`). */
  waits: Pick<EventWaits, 'waiting' | 'resumeMatching'>;
}

/** Runs of one event at a time; the interface allows 10 concurrent executions per script. */
const deliveryConcurrency = 10;
const maxCachedPredicates = 50_000;
/** Refusals that pass with time (the script's concurrent runs are busy): the run is retried, not dropped. */
const transientCodes: ReadonlySet<string> = new Set(['CONCURRENCY_LIMIT']);
/** The runner's answers for a script that is gone, not the subscriber's, or not deployed: nothing to run. */
const skippedCodes: ReadonlySet<string> = new Set(['NOT_FOUND', 'FORBIDDEN', 'CONFLICT']);

interface Delivery {
  deliveryId: string;
  userId: string;
  scriptId: string;
  data: unknown;
  trigger: ScriptTrigger;
  /** The user event this delivery is of, for its history. */
  event?: EventObject;
}

export function createDispatcher(deps: DispatcherDeps) {
  const predicates = new Map<string, { revision: string; test: Predicate }>();

  function predicateOf(subscription: ActiveSubscription): Predicate {
    const cached = predicates.get(subscription.subscriptionId);
    if (cached?.revision === subscription.updatedAt) return cached.test;
    let test: Predicate;
    try {
      test = compileConditionList(subscription.conditions, scriptDialect);
    } catch (error) {
      // Conditions are validated when written; one that no longer compiles matches nothing rather than everything.
      logger.error('stored subscription conditions do not compile', { subscriptionId: subscription.subscriptionId, error: String(error) });
      test = () => false;
    }
    if (predicates.size >= maxCachedPredicates) predicates.delete(predicates.keys().next().value!);
    predicates.set(subscription.subscriptionId, { revision: subscription.updatedAt, test });
    return test;
  }

  /** The subscriptions whose conditions the (enriched) event satisfies. */
  function match(event: EventObject, candidates: ActiveSubscription[]): ActiveSubscription[] {
    return candidates.filter((subscription) => predicateOf(subscription)(event));
  }

  async function deliver(delivery: Delivery): Promise<DeliveryOutcome | 'duplicate'> {
    const token = await deps.ledger.claim(delivery.deliveryId);
    if (!token) return 'duplicate';
    let outcome: DeliveryOutcome;
    try {
      const { scriptId, userId, data, trigger } = delivery;
      outcome = { result: 'executed', ...(await deps.scripts.run({ scriptId, userId, data, trigger })) };
    } catch (error) {
      if (!(error instanceof AppError) || transientCodes.has(error.code)) {
        await deps.ledger.release(delivery.deliveryId, token);
        throw error;
      }
      outcome = skippedCodes.has(error.code) ? { result: 'skipped', reason: error.message } : { result: 'refused', code: error.code, reason: error.message };
    }
    await deps.ledger.complete(delivery.deliveryId, token, outcome);
    if (delivery.event) {
      await deps.history.recordDelivery(delivery.event, {
        subscriptionId: delivery.trigger.source,
        scriptId: delivery.scriptId,
        result: outcome.result,
        executionId: outcome.result === 'executed' ? outcome.executionId : null,
        status: outcome.result === 'executed' ? outcome.status : null,
        code: outcome.result === 'refused' ? outcome.code : null,
        reason: outcome.result === 'executed' ? null : outcome.reason,
        at: deps.clock.nowIso(),
      });
    }
    return outcome;
  }

  const deliverEach = (deliveries: Delivery[]) => deliverAll(deliveries, deliveryConcurrency, deliver, 'deliveries');

  async function dispatchEvent(detail: Record<string, unknown>): Promise<DispatchReport> {
    if (typeof detail.id !== 'string' || typeof detail.userId !== 'string') {
      logger.error('event without id or userId dropped', { type: String(detail.type) });
      return emptyReport();
    }
    const now = deps.clock.nowIso();
    const normalized = normalizeEvent(detail, { id: detail.id, userId: detail.userId, now });
    const [candidates, waits] = await Promise.all([
      deps.index.active(detail.userId, String(detail.type)),
      deps.waits.waiting(detail.userId, String(detail.type)),
      deps.history.recordEvent(normalized),
    ]);
    // Most events of most users have no subscriber: enrichment is paid only when someone listens.
    if (candidates.length === 0 && waits.length === 0) return emptyReport();
    const event = enrichEvent(normalized, now);
    const [report] = await Promise.all([
      deliverEach(
        match(event, candidates).map((subscription) => ({
          deliveryId: `${event.id}#${subscription.subscriptionId}`,
          userId: event.userId,
          scriptId: subscription.scriptId,
          data: event,
          trigger: { type: 'event', source: subscription.subscriptionId, event: event.type },
          event: normalized,
        })),
      ),
      deps.waits.resumeMatching(event, waits),
    ]);
    return report;
  }

  async function runSchedule(detail: Record<string, unknown>): Promise<DispatchReport> {
    if (!firingIsDue(detail)) return emptyReport();
    const schedule = await deps.triggers.getSchedule(String(detail.scheduleId));
    if (!schedule?.enabled || schedule.userId !== detail.userId) return { ...emptyReport(), skipped: 1 };
    const report = await deliverEach([
      {
        deliveryId: `${schedule.scheduleId}@${String(detail.scheduledTime)}`,
        userId: schedule.userId,
        scriptId: schedule.scriptId,
        data: schedule.data,
        trigger: { type: 'schedule', source: schedule.scheduleId },
      },
    ]);
    // A deleted script leaves its schedules behind (the interface has no deleteSchedule); the first skipped firing after retires them.
    if (report.skipped && !(await deps.scripts.describe(schedule.scriptId))) await deps.triggers.retireSchedule(schedule.scheduleId);
    return report;
  }

  async function runWebhook(detail: Record<string, unknown>): Promise<DispatchReport> {
    const webhook = await deps.triggers.getWebhook(String(detail.webhookId));
    if (!webhook?.enabled || webhook.userId !== detail.userId) return { ...emptyReport(), skipped: 1 };
    return deliverEach([
      {
        deliveryId: String(detail.deliveryId),
        userId: webhook.userId,
        scriptId: webhook.scriptId,
        data: detail.body,
        trigger: { type: 'webhook', source: webhook.webhookId },
      },
    ]);
  }

  return {
    match,
    /** One event from the bus (EventBridge's `detail`, or the in-process bus's event). */
    handle(detail: Record<string, unknown>): Promise<DispatchReport> {
      if (detail.type === scheduleFiringType && detail.source === 'scheduler') return runSchedule(detail);
      if (detail.type === webhookDeliveryType && detail.source === webhookDeliverySource) return runWebhook(detail);
      // Other areas' internal deliveries (flows' schedule firings and retries): a subscription names only the owner events of platform.
      if (String(detail.type).startsWith('platform.') && !ownerEventTypes.has(String(detail.type))) return Promise.resolve(emptyReport());
      deps.metrics.record('EventsDispatched', 'Count', 1);
      return dispatchEvent(detail);
    },
  };
}

export type Dispatcher = ReturnType<typeof createDispatcher>;
