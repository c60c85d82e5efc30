// The events area's composition: its services, the trigger pipeline and its subscription kind with their production
// dependencies (stores, the platform root's ports, and the scripts area behind the ScriptPort). Handlers get their services here; services
// never import this file.
import { describeScript, resolveWait, runScript } from '#functions/scripts/api.js';
import { systemClock } from '#platform/clock.js';
import { settings } from '#platform/settings.js';
import { credentialVault } from '#functions/app/credential-vault.js';
import { eventPublisher } from '#functions/app/event-publisher.js';
import { liveScheduler } from '#functions/app/schedulers.js';
import { metrics } from '#functions/app/platform.js';
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
import { runEventWaits } from '#functions/app/run-wait-kinds.js';
import { createEventWaitTarget } from '#functions/events/wait-target.js';

let port: ScriptPort | undefined;
/** The scripts area's facade says who owns a script and whether it is deployed, and runs it with its limits. */
function scriptPort(): ScriptPort {
  if (port) return port;
  port = {
    async describe(scriptId) {
      const script = await describeScript(scriptId);
      return script && { userId: script.ownerId, deployed: script.deployed };
    },
    async run(request) {
      const { execution } = await runScript(request);
      return { executionId: execution.executionId, status: execution.status };
    },
  };
  return port;
}

/** Runs waiting for their user's events: opened by the durable engine, resumed by the trigger pipeline's wait kind. */
export const eventWaits = (): EventWaits => runEventWaits({ resolve: resolveWait });

let waitKind: TargetKind | undefined;
/** The trigger pipeline's kind for runs waiting on their user's events. */
export const eventWaitTarget = (): TargetKind => (waitKind ??= createEventWaitTarget(eventWaits()));

let subscriptionKind: TargetKind | undefined;
/** The trigger pipeline's subscription kind: subscribed scripts, script schedule firings and webhook requests. */
export function subscriptionTarget(): TargetKind {
  if (subscriptionKind) return subscriptionKind;
  const triggers = createTriggerStore();
  subscriptionKind = createSubscriptionTarget({
    index: createSubscriptionIndex({ cached: settings.mode === 'local' }),
    history: createEventHistoryStore(),
    scripts: scriptPort(),
    triggers: { ...triggers, retireSchedule: (scheduleId) => retireSchedule({ store: triggers, scheduler: liveScheduler }, scheduleId) },
    clock: systemClock,
  });
  return subscriptionKind;
}

/** The trigger pipeline over the target kinds the composition above the areas registers. */
export const triggerPipelineOf = (kinds: readonly TargetKind[]): TriggerPipeline =>
  createTriggerPipeline({ kinds, ledger: createDeliveryStore(systemClock), history: createEventHistoryStore(), clock: systemClock, metrics: metrics() });

let ingest: ReturnType<typeof createEventIngest> | undefined;
export const eventIngest = () => (ingest ??= createEventIngest({ publisher: eventPublisher(), clock: systemClock }));

let history: ReturnType<typeof createEventHistoryService> | undefined;
export const eventHistory = () => (history ??= createEventHistoryService({ store: createEventHistoryStore() }));

let subscriptions: SubscriptionService | undefined;
export const subscriptionService = (): SubscriptionService =>
  (subscriptions ??= createSubscriptionService({ store: createSubscriptionStore(), scripts: scriptPort(), clock: systemClock }));

let triggers: TriggerService | undefined;
export const triggerService = (): TriggerService =>
  (triggers ??= createTriggerService({
    store: createTriggerStore(),
    scripts: scriptPort(),
    vault: credentialVault(),
    publisher: eventPublisher(),
    // Resolved per call: the local scheduler is replaced when the local platform restarts in-process.
    scheduler: liveScheduler,
    clock: systemClock,
  }));
