// The flows area's consumer of the platform bus (beside the events dispatcher): time flows' schedule firings,
// retries coming due, and user events, matched against the active event flows of their user and type (one
// indexed Query; conditions compiled once per flow revision). A redelivered firing, retry or event never runs a
// flow twice: events and retries are claimed in the events area's delivery ledger, schedule minutes on the flow.
import { type DispatchReport, deliverAll, emptyReport } from '#functions/events/deliveries.js';
import type { DeliveryLedger, DeliveryOutcome } from '#functions/events/ports.js';
import { enrichEvent } from '#functions/events/enrichment/enrich.js';
import { normalizeEvent } from '#functions/events/event-object.js';
import type { Predicate } from '#functions/events/conditions/engine.js';
import type { Clock } from '#platform/clock.js';
import { firingIsDue } from '#platform/cron.js';
import { AppError } from '#platform/errors.js';
import { logger } from '#platform/logger.js';
import { compileFlowConditions } from './conditions.js';
import type { ExecutionStore } from './execution-store.js';
import type { FlowRuns, RunTrigger } from './flow-runs.js';
import { flowRetryType, flowScheduleType } from './internal-events.js';
import { ownerEventTypes } from '#functions/events/event-types.js';
import type { FlowItem } from './model.js';
import type { FlowRef, FlowStore } from './store.js';

export interface FlowEventConsumerDeps {
  flows: FlowStore;
  executions: ExecutionStore;
  runs: FlowRuns;
  ledger: DeliveryLedger;
  clock: Clock;
}

export type FlowDispatchReport = DispatchReport;

/** Flows of one event at a time, as the dispatcher does for scripts. */
const deliveryConcurrency = 10;
const maxCachedPredicates = 50_000;
/** Refusals that pass with time: the delivery is released and the bus retries it. */
const transientCodes: ReadonlySet<string> = new Set(['CONCURRENCY_LIMIT']);

interface Delivery {
  deliveryId: string;
  flow: FlowRef;
  trigger: RunTrigger;
}

export function createFlowEventConsumer(deps: FlowEventConsumerDeps) {
  const { flows, ledger } = deps;
  const predicates = new Map<string, { revision: string; test: Predicate }>();

  function predicateOf(flow: FlowItem): Predicate {
    const cached = predicates.get(flow.flowId);
    if (cached?.revision === flow.updatedAt) return cached.test;
    let test: Predicate = () => false;
    if (flow.trigger.type === 'event') {
      try {
        test = compileFlowConditions(flow.trigger.config.rootCondition, flow.trigger.config.eventType);
      } catch (error) {
        // Validated when saved; a tree that no longer compiles matches nothing rather than everything.
        logger.error('stored flow conditions do not compile', { flowId: flow.flowId, error: String(error) });
      }
    }
    if (predicates.size >= maxCachedPredicates) predicates.delete(predicates.keys().next().value!);
    predicates.set(flow.flowId, { revision: flow.updatedAt, test });
    return test;
  }

  /** Runs one delivery; refusals become skipped (flow gone, paused, firing already run) or refused (limits). */
  async function attempt({ flow, trigger }: Delivery): Promise<DeliveryOutcome> {
    try {
      const result = await deps.runs.run(flow, trigger);
      return { result: 'executed', executionId: result.executionId, status: result.status };
    } catch (error) {
      if (!(error instanceof AppError) || transientCodes.has(error.code)) throw error;
      return error.code === 'NOT_FOUND' || error.code === 'CONFLICT'
        ? { result: 'skipped', reason: error.message }
        : { result: 'refused', code: error.code, reason: error.message };
    }
  }

  /** Events and retries are claimed in the ledger; a schedule firing's claim is the run's first write (FlowStore.startRun). */
  async function deliver(delivery: Delivery): Promise<DeliveryOutcome | 'duplicate'> {
    if (delivery.trigger.firing) return attempt(delivery);
    const token = await ledger.claim(delivery.deliveryId);
    if (!token) return 'duplicate';
    let outcome: DeliveryOutcome;
    try {
      outcome = await attempt(delivery);
    } catch (error) {
      await ledger.release(delivery.deliveryId, token);
      throw error;
    }
    await ledger.complete(delivery.deliveryId, token, outcome);
    return outcome;
  }

  const deliverEach = (deliveries: Delivery[]) => deliverAll(deliveries, deliveryConcurrency, deliver, 'flow deliveries');

  /** A time flow's firing starts its run without reading the flow first: the run's first write checks owner and state. */
  async function runSchedule(detail: Record<string, unknown>): Promise<FlowDispatchReport> {
    if (!firingIsDue(detail)) return emptyReport();
    const flow = { flowId: String(detail.flowId), userId: String(detail.userId) };
    const scheduledTime = String(detail.scheduledTime);
    return deliverEach([
      {
        deliveryId: `flow#${flow.flowId}@${scheduledTime}`,
        flow,
        trigger: { type: 'time', data: { flowId: flow.flowId, scheduledTime }, attempt: 0, firing: scheduledTime },
      },
    ]);
  }

  async function runRetry(detail: Record<string, unknown>): Promise<FlowDispatchReport> {
    const retry = await deps.executions.getRetry(String(detail.flowId), String(detail.originId));
    if (!retry || retry.attempt !== detail.attempt || retry.userId !== detail.userId) return { ...emptyReport(), skipped: 1 };
    const trigger: RunTrigger = {
      type: retry.trigger.type,
      eventType: retry.trigger.eventType,
      data: retry.data,
      attempt: retry.attempt,
      originId: retry.originId,
    };
    const report = await deliverEach([
      { deliveryId: `flow-retry#${retry.originId}#${retry.attempt}`, flow: { flowId: retry.flowId, userId: retry.userId }, trigger },
    ]);
    // Paused or deleted meanwhile: the retries end here.
    if (report.skipped) await deps.executions.deleteRetry(retry.flowId, retry.originId);
    return report;
  }

  async function runEvent(detail: Record<string, unknown>): Promise<FlowDispatchReport> {
    if (typeof detail.id !== 'string' || typeof detail.userId !== 'string') return emptyReport();
    const candidates = await flows.activeForEvent(detail.userId, String(detail.type));
    if (candidates.length === 0) return emptyReport();
    const now = deps.clock.nowIso();
    const event = enrichEvent(normalizeEvent(detail, { id: detail.id, userId: detail.userId, now }), now);
    return deliverEach(
      candidates
        .filter((flow) => predicateOf(flow)(event))
        .map((flow) => ({
          deliveryId: `${event.id}#${flow.flowId}`,
          flow: { flowId: flow.flowId, userId: flow.userId },
          trigger: { type: 'event', eventType: event.type, data: event, attempt: 0 },
        })),
    );
  }

  return {
    /** One event from the bus (EventBridge's `detail`, or the in-process bus's event). */
    handle(detail: Record<string, unknown>): Promise<FlowDispatchReport> {
      if (detail.source === 'scheduler' && detail.type === flowScheduleType) return runSchedule(detail);
      if (detail.source === 'scheduler' && detail.type === flowRetryType) return runRetry(detail);
      // Other platform deliveries (script schedules, webhooks) are the dispatcher's.
      if (typeof detail.type !== 'string' || (detail.type.startsWith('platform.') && !ownerEventTypes.has(detail.type))) return Promise.resolve(emptyReport());
      return runEvent(detail);
    },
  };
}

export type FlowEventConsumer = ReturnType<typeof createFlowEventConsumer>;
