// The events area's side of the trigger pipeline: its delivery ledger and the two target kinds it owns (subscribed
// scripts, schedule firings and webhook requests; runs waiting on their user's events). The composition above the
// areas (functions/app/trigger-pipeline.ts) adds the other areas' kinds.
import { runEventWaits } from '#functions/app/durable-engine.js';
import { type Platform, perPlatform } from '#functions/app/platform.js';
import { createDeliveryStore } from '#functions/events/delivery-store.js';
import type { EventWaits } from '#functions/events/event-waits.js';
import { createEventHistoryStore } from '#functions/events/history-store.js';
import { createSubscriptionTarget } from '#functions/events/subscription-target.js';
import { createSubscriptionIndex } from '#functions/events/subscription-store.js';
import type { TargetKind } from '#functions/events/target-kind.js';
import { retireSchedule } from '#functions/events/trigger-service.js';
import { createTriggerStore } from '#functions/events/trigger-store.js';
import { type TriggerPipeline, createTriggerPipeline } from '#functions/events/trigger-pipeline.js';
import { createEventWaitTarget } from '#functions/events/wait-target.js';
import { scriptPort } from './script-port.js';

/** Runs waiting for their user's events: opened by the durable engine, resumed by the trigger pipeline's wait kind. */
export const eventWaits = (of?: Platform): EventWaits => runEventWaits(of);

/** The trigger pipeline's kind for runs waiting on their user's events. */
export const eventWaitTarget = perPlatform(
  (platform): TargetKind => createEventWaitTarget({ waits: eventWaits(platform), history: createEventHistoryStore(), clock: platform.clock }),
);

/** The trigger pipeline's subscription kind: subscribed scripts, script schedule firings and webhook requests. */
export const subscriptionTarget = perPlatform((platform): TargetKind => {
  const { settings, scheduler, clock } = platform;
  const triggers = createTriggerStore();
  return createSubscriptionTarget({
    index: createSubscriptionIndex({ cached: settings.kernel.mode === 'local' }),
    history: createEventHistoryStore(),
    scripts: scriptPort(platform),
    triggers: { ...triggers, retireSchedule: (scheduleId) => retireSchedule({ store: triggers, scheduler }, scheduleId) },
    clock,
  });
});

/** The trigger pipeline over the target kinds the composition above the areas registers. */
export const triggerPipelineOf = ({ clock, metrics }: Platform, kinds: readonly TargetKind[]): TriggerPipeline =>
  createTriggerPipeline({ kinds, ledger: createDeliveryStore(clock), history: createEventHistoryStore(), clock, metrics });
