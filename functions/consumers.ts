// The functions the platform bus delivers to, read by lib/bus-consumers.ts (a rule each) and by the local runtime
// (bin/local.ts), which attaches the same handlers to the in-process bus with the same rule patterns.
import { ownerEventTypes } from './events/event-types.js';
import { scheduleFiringType, webhookDeliveryType } from './events/internal-events.js';
import { dispatcherFunction } from './events/routes.js';
import { flowRetryType, flowScheduleType } from './flows/internal-events.js';
import { flowEventConsumerFunction } from './flows/routes.js';
import type { BusConsumer, ServiceEventConsumer } from './platform/route.js';
import { buildStateFunction } from './templates/routes.js';
import { durableWakeType } from './scripts/durable/internal-events.js';
import { durableWakeFunction } from './scripts/routes.js';

export const busConsumers: BusConsumer[] = [
  {
    name: 'dispatchEvent',
    summary: 'Runs the scripts whose subscriptions match an event',
    sourcePrefix: 'platform.',
    // The platform's owner events (a failed run, an approval requested): subscriptions take them like any event type.
    internalTypes: [scheduleFiringType, webhookDeliveryType, ...ownerEventTypes],
    ...dispatcherFunction,
  },
  // A minute's time flows start side by side (each run of a script still waits for one of its 10 slots).
  {
    name: 'runFlows',
    summary: 'Runs the flows an event or a schedule firing is for',
    sourcePrefix: 'platform.',
    internalTypes: [flowScheduleType, flowRetryType, ...ownerEventTypes],
    localConcurrency: 1000,
    ...flowEventConsumerFunction,
  },
  // Many durable runs may wake at once (a burst of callbacks): each continues in its own invocation.
  {
    name: 'wakeDurableRuns',
    summary: 'Continues durable runs: a wait ended, a timer or timeout came, an invocation was lost',
    sourcePrefix: 'platform.',
    internalTypes: [durableWakeType],
    localConcurrency: 1000,
    ...durableWakeFunction,
  },
];

/** CodeBuild's state changes of template builds, on the default bus: read by lib/templates.ts (no local counterpart, the local builder reports itself). */
export const templateBuildStateConsumer: ServiceEventConsumer = { ...buildStateFunction, source: 'aws.codebuild', detailType: 'CodeBuild Build State Change' };
