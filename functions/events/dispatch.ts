// The dispatcher with its production dependencies, shared by the AWS Lambda target and the local bus rule.
import { liveScheduler, metrics } from '#platform/wiring.js';
import { systemClock } from '#platform/clock.js';
import { settings } from '#platform/settings.js';
import { createDeliveryStore } from './delivery-store.js';
import { createEventHistoryStore } from './history-store.js';
import { type Dispatcher, createDispatcher } from './dispatcher.js';
import { scriptPort } from './script-port.js';
import { createSubscriptionIndex } from './subscription-store.js';
import { retireSchedule } from './trigger-service.js';
import { createTriggerStore } from './trigger-store.js';

let dispatcher: Dispatcher | undefined;

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
  });
  return dispatcher;
}
