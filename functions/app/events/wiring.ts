// The events area's composition: its services, the trigger pipeline and its subscription kind with their production
// dependencies (stores, the platform root's ports, and the scripts area behind the ScriptPort). Handlers get their services here; services
// never import this file.
import { scriptsApi } from '#functions/app/scripts/wiring.js';
import { type Platform, perPlatform } from '#functions/app/platform.js';
import { createDeliveryStore } from '#functions/events/delivery-store.js';
import { createEventHistoryService } from '#functions/events/history-service.js';
import { createEventHistoryStore } from '#functions/events/history-store.js';
import { createEventIngest } from '#functions/events/ingest.js';
import type { ScriptPort } from '#functions/events/ports.js';
import { createSubscriptionTarget } from '#functions/events/subscription-target.js';
import { type SubscriptionService, createSubscriptionService } from '#functions/events/subscription-service.js';
import { createSubscriptionIndex, createSubscriptionStore } from '#functions/events/subscription-store.js';
import { type TriggerService, createTriggerService, retireSchedule } from '#functions/events/trigger-service.js';
import { createTriggerStore } from '#functions/events/trigger-store.js';
import type { TargetKind } from '#functions/events/target-kind.js';
import { type TriggerPipeline, createTriggerPipeline } from '#functions/events/trigger-pipeline.js';
import type { EventWaits } from '#functions/events/event-waits.js';
import { runEventWaits } from '#functions/app/durable-engine.js';
import { createEventWaitTarget } from '#functions/events/wait-target.js';

/** The scripts area's facade says who owns a script and whether it is deployed, and runs it with its limits. */
const scriptPort = (platform: Platform): ScriptPort => ({
  async describe(scriptId) {
    const script = await scriptsApi(platform).describeScript(scriptId);
    return script && { userId: script.ownerId, deployed: script.deployed };
  },
  async run(request) {
    const { execution } = await scriptsApi(platform).runScript(request);
    return { executionId: execution.executionId, status: execution.status };
  },
});

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

export const eventIngest = perPlatform(({ eventBus, clock }) => createEventIngest({ publisher: eventBus, clock }));

export const eventHistory = perPlatform(() => createEventHistoryService({ store: createEventHistoryStore() }));

export const subscriptionService = perPlatform(
  (platform): SubscriptionService => createSubscriptionService({ store: createSubscriptionStore(), scripts: scriptPort(platform), clock: platform.clock }),
);

export const triggerService = perPlatform(
  (platform): TriggerService =>
    createTriggerService({
      store: createTriggerStore(),
      scripts: scriptPort(platform),
      vault: platform.credentialVault,
      publisher: platform.eventBus,
      scheduler: platform.scheduler,
      clock: platform.clock,
    }),
);
