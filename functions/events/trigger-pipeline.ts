// The trigger pipeline: the one consumer of the platform bus. A user event is normalised and recorded once,
// enriched once (only when some target listens), matched against the candidates of every registered target kind
// through one predicate cache, and delivered through one ledger: each delivery is claimed first, so a retried event
// never runs a target twice, and a failure of one delivery neither stops the others nor loses the event. The
// platform's own deliveries (schedule firings, webhook requests, retries) go to the kind that registered their type.
import type { Clock } from '#platform/clock.js';
import { AppError } from '#platform/errors.js';
import { logger } from '#platform/logger.js';
import type { MetricsPort } from '#platform/ports.js';
import type { Predicate } from './conditions/engine.js';
import { type DispatchReport, createLanes, deliverAll, emptyReport } from './deliveries.js';
import { enrichEvent } from './enrichment/enrich.js';
import { type EventObject, normalizeEvent } from '#platform/event-object.js';
import { ownerEventTypes } from '#platform/event-types.js';
import type { DeliveryLedger, DeliveryOutcome, EventHistory } from './ports.js';
import type { Candidate, InternalDelivery, TargetDelivery, TargetKind } from './target-kind.js';

export interface TriggerPipelineDeps {
  kinds: readonly TargetKind[];
  ledger: DeliveryLedger;
  history: Pick<EventHistory, 'recordEvent'>;
  clock: Clock;
  metrics: MetricsPort;
}

/** Deliveries of one event and kind at a time; the interface allows 10 concurrent executions per script. */
const deliveryConcurrency = 10;
const maxCachedPredicates = 50_000;
/** Refusals that pass with time (the target's concurrent runs are busy): the delivery is retried, not dropped. */
const transientCodes: ReadonlySet<string> = new Set(['CONCURRENCY_LIMIT']);

const sumReports = (reports: DispatchReport[]): DispatchReport =>
  reports.reduce(
    (sum, report) => ({
      matched: sum.matched + report.matched,
      executed: sum.executed + report.executed,
      duplicates: sum.duplicates + report.duplicates,
      skipped: sum.skipped + report.skipped,
      refused: sum.refused + report.refused,
    }),
    emptyReport(),
  );

function internalDeliveries(kinds: readonly TargetKind[]) {
  const byType = new Map<string, { kind: TargetKind; delivery: InternalDelivery }>();
  for (const kind of kinds) {
    for (const [type, delivery] of Object.entries(kind.internal ?? {})) {
      const taken = byType.get(type);
      if (taken) throw new Error(`the internal type ${type} is taken by both ${taken.kind.name} and ${kind.name}`);
      byType.set(type, { kind, delivery });
    }
  }
  return byType;
}

export function createTriggerPipeline(deps: TriggerPipelineDeps) {
  const { kinds, ledger } = deps;
  if (new Set(kinds.map((kind) => kind.name)).size !== kinds.length) throw new Error('two target kinds share a name');
  const internal = internalDeliveries(kinds);
  // Keyed by the target's own id (no key built per test on the hot path); an entry of another kind under the same id
  // is compiled again, never reused.
  const predicates = new Map<string, { kind: string; revision: string; test: Predicate }>();

  function predicateOf(kind: TargetKind, candidate: Candidate): Predicate {
    const cached = predicates.get(candidate.id);
    if (cached?.revision === candidate.revision && cached.kind === kind.name) return cached.test;
    let test: Predicate;
    try {
      test = candidate.compile();
    } catch (error) {
      // Conditions are validated when written; one that no longer compiles matches nothing rather than everything.
      logger.error('stored conditions do not compile', { kind: kind.name, id: candidate.id, error: String(error) });
      test = () => false;
    }
    if (predicates.size >= maxCachedPredicates) predicates.delete(predicates.keys().next().value!);
    predicates.set(candidate.id, { kind: kind.name, revision: candidate.revision, test });
    return test;
  }

  /** The candidates of `kind` whose conditions the (enriched) event satisfies. */
  const match = (kind: TargetKind, event: EventObject, candidates: Candidate[]): Candidate[] =>
    candidates.filter((candidate) => predicateOf(kind, candidate)(event));

  const lanes = createLanes();

  const deliver = (kind: TargetKind, delivery: TargetDelivery) =>
    delivery.lane ? lanes.run(delivery.lane.key, delivery.lane.limit, () => deliverNow(kind, delivery)) : deliverNow(kind, delivery);

  async function deliverNow(kind: TargetKind, delivery: TargetDelivery): Promise<DeliveryOutcome | 'duplicate'> {
    const token = delivery.claimedByRun ? undefined : await ledger.claim(delivery.deliveryId);
    if (!delivery.claimedByRun && !token) return 'duplicate';
    let outcome: DeliveryOutcome;
    try {
      const { executionId, status } = await delivery.run();
      outcome = { result: 'executed', executionId, status };
    } catch (error) {
      if (!(error instanceof AppError) || transientCodes.has(error.code)) {
        if (token) await ledger.release(delivery.deliveryId, token);
        throw error;
      }
      outcome = kind.skippedCodes.has(error.code)
        ? { result: 'skipped', reason: error.message }
        : { result: 'refused', code: error.code, reason: error.message };
    }
    if (token) await ledger.complete(delivery.deliveryId, token, outcome);
    // Done and in the ledger: a failed history line is logged, since a retry of the event would find it a duplicate.
    await delivery
      .recorded?.(outcome)
      .catch((error: unknown) =>
        logger.error('the delivery could not be recorded in its history', { kind: kind.name, deliveryId: delivery.deliveryId, error: String(error) }),
      );
    return outcome;
  }

  const deliverEach = (kind: TargetKind) => (deliveries: TargetDelivery[]) =>
    deliverAll(deliveries, deliveryConcurrency, (delivery) => deliver(kind, delivery), kind.name);

  /** Each kind's deliveries side by side; one kind's failures are rethrown only after the others have run. */
  async function deliverByKind(groups: Array<{ kind: TargetKind; deliveries: TargetDelivery[] }>): Promise<DispatchReport> {
    const settled = await Promise.allSettled(groups.filter((group) => group.deliveries.length).map((group) => deliverEach(group.kind)(group.deliveries)));
    const failures = settled.flatMap((result) => (result.status === 'rejected' ? [result.reason] : []));
    if (failures.length) throw failures.length === 1 ? failures[0] : new AggregateError(failures, `deliveries of ${failures.length} target kinds failed`);
    return sumReports(settled.map((result) => (result as PromiseFulfilledResult<DispatchReport>).value));
  }

  async function deliverEvent(detail: Record<string, unknown>): Promise<DispatchReport> {
    if (typeof detail.id !== 'string' || typeof detail.userId !== 'string') {
      logger.error('event without id or userId dropped', { type: String(detail.type) });
      return emptyReport();
    }
    const now = deps.clock.nowIso();
    const normalized = normalizeEvent(detail, { id: detail.id, userId: detail.userId, now });
    const userId = detail.userId;
    const type = String(detail.type);
    // The history is what the user reads back, not what delivery depends on: a failed write is logged, never retried
    // by failing the event (a retry would not write it either, and would hold up every target).
    const recorded = deps.history
      .recordEvent(normalized)
      .catch((error: unknown) => logger.error('the event could not be recorded in its history', { eventId: detail.id, type, error: String(error) }));
    const [candidates] = await Promise.all([Promise.all(kinds.map((kind) => kind.candidates(userId, type))), recorded]);
    // Most events of most users have no listener: enrichment is paid only when someone listens.
    if (candidates.every((list) => list.length === 0)) return emptyReport();
    const event = { normalized, enriched: enrichEvent(normalized, now) };
    return deliverByKind(
      kinds.map((kind, index) => ({
        kind,
        deliveries: match(kind, event.enriched, candidates[index]!).map((candidate) => candidate.delivery(event)),
      })),
    );
  }

  return {
    match,
    /** One event from the bus (EventBridge's `detail`, or the in-process bus's event). */
    handle(detail: Record<string, unknown>): Promise<DispatchReport> {
      const taken = internal.get(String(detail.type));
      if (taken && detail.source === taken.delivery.source) return taken.delivery.handle(detail, deliverEach(taken.kind));
      // The platform's own deliveries no kind takes (or from the wrong source): no user target can name a platform. type,
      // except the owner events the platform emits for its users (a failed run), which go to targets like any event.
      if (String(detail.type).startsWith('platform.') && !ownerEventTypes.has(String(detail.type))) return Promise.resolve(emptyReport());
      deps.metrics.record('EventsDispatched', 'Count', 1);
      return deliverEvent(detail);
    },
  };
}

export type TriggerPipeline = ReturnType<typeof createTriggerPipeline>;
