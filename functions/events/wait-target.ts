// The trigger pipeline's kind for durable runs waiting on their user's events (`waitForEvent`): the candidates are
// the user's waits for the event type (one Query), matched through the pipeline's predicate cache; a match resumes
// the run once (the ledger claims the delivery, the wait store claims the wait).
import { compileConditionList } from './conditions/engine.js';
import { scriptDialect } from './conditions/script-dialect.js';
import type { Clock } from '#platform/clock.js';
import type { EventWaits } from './event-waits.js';
import type { EventHistory } from './ports.js';
import type { TargetKind } from './target-kind.js';

export interface EventWaitTargetDeps {
  waits: Pick<EventWaits, 'waiting' | 'resume'>;
  /** The event's deliveries say which run and which wait it resumed. */
  history: Pick<EventHistory, 'recordDelivery'>;
  clock: Clock;
}

export function createEventWaitTarget({ waits, history, clock }: EventWaitTargetDeps): TargetKind {
  return {
    name: 'eventWait',
    // The run stopped waiting (timed out, cancelled) or another event took the wait: nothing to resume.
    skippedCodes: new Set(['NOT_FOUND', 'CONFLICT']),
    async candidates(userId, eventType) {
      return (await waits.waiting(userId, eventType)).map((wait) => ({
        id: wait.waitId,
        revision: wait.createdAt,
        compile: () => compileConditionList(wait.conditions, scriptDialect),
        delivery: (event) => ({
          deliveryId: `${event.normalized.id}#wait#${wait.waitId}`,
          async run() {
            const resumed = await waits.resume(wait, event.enriched);
            return { executionId: wait.executionId, status: resumed ? 'resumed' : 'skipped' };
          },
          // Only a wait this event resumed: one another event took first is not this event's delivery.
          recorded: async (outcome) => {
            if (outcome.result !== 'executed' || outcome.status !== 'resumed') return;
            await history.recordDelivery(event.normalized, {
              subscriptionId: null,
              scriptId: null,
              wait: wait.name,
              result: 'executed',
              executionId: wait.executionId,
              status: 'resumed',
              code: null,
              reason: null,
              at: clock.nowIso(),
            });
          },
        }),
      }));
    },
  };
}
