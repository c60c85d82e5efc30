// The subscription kind of the trigger pipeline: an event matching a subscription's conditions runs its script with
// the enriched event object, and each outcome goes into the user's event history. Script schedule firings and
// webhook requests are this kind's internal deliveries: each runs its script once.
import { firingIsDue } from '#platform/cron.js';
import { runQueueWakeType } from '#platform/flow-control.js';
import type { Clock } from '#platform/clock.js';
import { compileConditionList } from './conditions/engine.js';
import { scriptDialect } from './conditions/script-dialect.js';
import { emptyReport } from './deliveries.js';
import { scheduleFiringType, webhookDeliverySource, webhookDeliveryType } from './internal-events.js';
import type { ActiveSubscription, EventHistory, ScriptPort, SubscriptionIndex, TriggerLookup } from './ports.js';
import type { Candidate, MatchedEvent, TargetKind } from './target-kind.js';

export interface SubscriptionTargetDeps {
  index: SubscriptionIndex;
  history: Pick<EventHistory, 'recordDelivery'>;
  scripts: ScriptPort;
  triggers: TriggerLookup;
  clock: Clock;
}

/**
 * Deliveries to one script claimed and running at once in a process: the interface's 10 concurrent executions per
 * script. A burst of events for a busy script waits here, before its claim and the run's admission (several store calls
 * each), rather than in the runner's slot queue after them.
 */
const scriptLaneLimit = 10;

/** The runner's answers for a script that is gone, not the subscriber's, or not deployed: nothing to run. */
const skippedCodes: ReadonlySet<string> = new Set(['NOT_FOUND', 'FORBIDDEN', 'CONFLICT']);

export function createSubscriptionTarget(deps: SubscriptionTargetDeps): TargetKind {
  const candidate = (subscription: ActiveSubscription): Candidate => ({
    id: subscription.subscriptionId,
    revision: subscription.updatedAt,
    compile: () => compileConditionList(subscription.conditions, scriptDialect),
    delivery: ({ normalized, enriched }: MatchedEvent) => ({
      deliveryId: `${enriched.id}#${subscription.subscriptionId}`,
      lane: { key: `script#${subscription.scriptId}`, limit: scriptLaneLimit },
      run: () =>
        deps.scripts.run({
          scriptId: subscription.scriptId,
          userId: enriched.userId,
          data: enriched,
          trigger: { type: 'event', source: subscription.subscriptionId, event: enriched.type },
        }),
      recorded: (outcome) =>
        deps.history.recordDelivery(normalized, {
          subscriptionId: subscription.subscriptionId,
          scriptId: subscription.scriptId,
          result: outcome.result,
          executionId: outcome.result === 'executed' ? outcome.executionId : null,
          status: outcome.result === 'executed' ? outcome.status : null,
          code: outcome.result === 'refused' ? outcome.code : null,
          reason: outcome.result === 'executed' ? null : outcome.reason,
          at: deps.clock.nowIso(),
        }),
    }),
  });

  return {
    name: 'subscription',
    skippedCodes,
    candidates: async (userId, eventType) => (await deps.index.active(userId, eventType)).map(candidate),
    internal: {
      [scheduleFiringType]: {
        source: 'scheduler',
        async handle(detail, deliver) {
          if (!firingIsDue(detail)) return emptyReport();
          const schedule = await deps.triggers.getSchedule(String(detail.scheduleId));
          if (!schedule?.enabled || schedule.userId !== detail.userId) return { ...emptyReport(), skipped: 1 };
          const { scriptId, userId, data } = schedule;
          const report = await deliver([
            {
              deliveryId: `${schedule.scheduleId}@${String(detail.scheduledTime)}`,
              run: () => deps.scripts.run({ scriptId, userId, data, trigger: { type: 'schedule', source: schedule.scheduleId } }),
            },
          ]);
          // A deleted script leaves its schedules behind (the interface has no deleteSchedule); the first skipped firing after retires them.
          if (report.skipped && !(await deps.scripts.describe(scriptId))) await deps.triggers.retireSchedule(schedule.scheduleId);
          return report;
        },
      },
      [runQueueWakeType]: {
        source: 'scheduler',
        async handle(detail) {
          await deps.scripts.wakeRunQueue(detail);
          return emptyReport();
        },
      },
      [webhookDeliveryType]: {
        source: webhookDeliverySource,
        async handle(detail, deliver) {
          const webhook = await deps.triggers.getWebhook(String(detail.webhookId));
          if (!webhook?.enabled || webhook.userId !== detail.userId) return { ...emptyReport(), skipped: 1 };
          const { scriptId, userId } = webhook;
          return deliver([
            {
              deliveryId: String(detail.deliveryId),
              run: () => deps.scripts.run({ scriptId, userId, data: detail.body, trigger: { type: 'webhook', source: webhook.webhookId } }),
            },
          ]);
        },
      },
    },
  };
}
