// The functions the platform bus delivers to, read by lib/bus-consumers.ts (a rule each) and by the local runtime
// (bin/local.ts), which attaches the same handlers to the in-process bus with the same rule patterns. Both run the
// one trigger pipeline (functions/app/trigger-pipeline.ts); no event type reaches two of them.
import { ownerEventTypes } from './platform/event-types.js';
import { runQueueWakeType } from './platform/flow-control.js';
import { scheduleFiringType, webhookDeliveryType } from './events/internal-events.js';
import { subscriptionTargetNeeds } from './events/routes.js';
import { flowReplayType, flowRetryType, flowScheduleType } from './flows/internal-events.js';
import { flowTargetNeeds } from './flows/routes.js';
import type { BusConsumer, ServiceEventConsumer } from './platform/route.js';
import { buildStateFunction } from './templates/routes.js';
import { durableWakeType } from './durable/api.js';
import { durableWakeFunction, scriptRoutes } from './scripts/routes.js';
import { gatherCloseType } from './scripts/runs/gathering.js';

const triggerPipelineHandler = 'functions/app/handlers/deliver-event.ts';

export const busConsumers: BusConsumer[] = [
  // Every user event once, for every kind of target (one invocation per event), and the scripts' own deliveries;
  // each run of a script waits in the script runner for one of its script's slots.
  {
    name: 'dispatchEvent',
    summary: 'Delivers each user event to every target it matches (subscribed scripts, event flows), and runs script schedule firings and webhook requests',
    handler: triggerPipelineHandler,
    sourcePrefix: 'platform.',
    userEvents: true,
    // The platform's owner events (a failed run, an approval requested): subscriptions and event flows take them like
    // any event type.
    internalTypes: [scheduleFiringType, webhookDeliveryType, runQueueWakeType, ...ownerEventTypes],
    // Subscriptions run scripts: what running a script needs, with the dispatch tables of each kind of target.
    tables: { ...scriptRoutes.executeScript.tables, ...subscriptionTargetNeeds.tables, ...flowTargetNeeds.tables },
    uses: [...new Set([...(scriptRoutes.executeScript.uses ?? []), ...subscriptionTargetNeeds.uses, ...flowTargetNeeds.uses])],
    // Scripts run up to 300 s each, several per event.
    timeoutSeconds: 900,
    memoryMb: 1024,
    localConcurrency: 1000,
  },
  // A minute's time flows start side by side (each run of a script still waits for one of its 10 slots), so their
  // firings have a rule of their own.
  {
    name: 'runFlows',
    summary: "Runs time flows' schedule firings and flow retries coming due and replays",
    handler: triggerPipelineHandler,
    sourcePrefix: 'platform.',
    userEvents: false,
    internalTypes: [flowScheduleType, flowRetryType, flowReplayType],
    localConcurrency: 1000,
    ...flowTargetNeeds,
    // One flow run of at most 300 s.
    timeoutSeconds: 330,
    memoryMb: 1024,
  },
  // Many durable runs may wake at once (a burst of callbacks): each continues in its own invocation.
  {
    name: 'wakeDurableRuns',
    summary: 'Continues durable runs (a wait ended, a timer or timeout came, an invocation was lost) and starts the runs of closed debounce and batch windows',
    sourcePrefix: 'platform.',
    userEvents: false,
    internalTypes: [durableWakeType, gatherCloseType],
    localConcurrency: 1000,
    ...durableWakeFunction,
    // It continues llm flows' runs too (after a tool call's approval): what a flow's execution needs.
    tables: { ...durableWakeFunction.tables, ...flowTargetNeeds.tables },
    uses: [...new Set([...(durableWakeFunction.uses ?? []), ...flowTargetNeeds.uses])],
  },
];

/** CodeBuild's state changes of template builds, on the default bus: read by lib/templates.ts (no local counterpart, the local builder reports itself). */
export const templateBuildStateConsumer: ServiceEventConsumer = { ...buildStateFunction, source: 'aws.codebuild', detailType: 'CodeBuild Build State Change' };
