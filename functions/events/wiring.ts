// The events area's composition: its services and the dispatcher with their production dependencies (stores, the
// platform root's ports, and the scripts area behind the ScriptPort). Handlers get their services here; services
// never import this file.
import { durableEngine, scriptRunner } from '#functions/scripts/wiring.js';
import { createScriptStore } from '#functions/scripts/store.js';
import { systemClock } from '#platform/clock.js';
import { settings } from '#platform/settings.js';
import { credentialVault, eventPublisher, liveScheduler, metrics } from '#functions/app/platform.js';
import { createDeliveryStore } from './delivery-store.js';
import { type Dispatcher, createDispatcher } from './dispatcher.js';
import { createEventHistoryService } from './history-service.js';
import { createEventHistoryStore } from './history-store.js';
import { type EventWaits, createEventWaitStore, createEventWaits } from './event-waits.js';
import { createEventIngest } from './ingest.js';
import type { ScriptPort } from './ports.js';
import { type SubscriptionService, createSubscriptionService } from './subscription-service.js';
import { createSubscriptionIndex, createSubscriptionStore } from './subscription-store.js';
import { type TriggerService, createTriggerService, retireSchedule } from './trigger-service.js';
import { createTriggerStore } from './trigger-store.js';

let port: ScriptPort | undefined;
/** The scripts area's store says who owns a script and whether it is deployed; its runner runs it with its limits. */
function scriptPort(): ScriptPort {
  if (port) return port;
  const store = createScriptStore();
  port = {
    async describe(scriptId) {
      const script = await store.get(scriptId);
      return script && { userId: script.ownerId, deployed: script.activeVersion !== null };
    },
    async run(request) {
      const { execution } = await scriptRunner().execute(request);
      return { executionId: execution.executionId, status: execution.status };
    },
  };
  return port;
}

let waits: EventWaits | undefined;
/** Runs waiting for their user's events: opened by the durable engine, resumed by the dispatcher. */
export const eventWaits = (): EventWaits =>
  (waits ??= createEventWaits({
    store: createEventWaitStore(),
    resolver: { resolve: (executionId, name, outcome) => durableEngine().resolveWait(executionId, name, outcome) },
    clock: systemClock,
  }));

let dispatcher: Dispatcher | undefined;
/** Shared by the AWS Lambda target and the local bus rule. */
export function eventDispatcher(): Dispatcher {
  if (dispatcher) return dispatcher;
  const triggers = createTriggerStore();
  dispatcher = createDispatcher({
    index: createSubscriptionIndex({ cached: settings.mode === 'local' }),
    ledger: createDeliveryStore(systemClock),
    history: createEventHistoryStore(),
    scripts: scriptPort(),
    triggers: { ...triggers, retireSchedule: (scheduleId) => retireSchedule({ store: triggers, scheduler: liveScheduler }, scheduleId) },
    clock: systemClock,
    metrics: metrics(),
    waits: eventWaits(),
  });
  return dispatcher;
}

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
