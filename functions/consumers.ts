// The functions the platform bus delivers to, read by lib/bus-consumers.ts (a rule each); locally the
// in-process bus calls the same code (functions/adapters/local/event-bus.ts).
import { dispatcherFunction } from './events/routes.js';
import { flowRunnerFunction } from './flows/routes.js';
import type { BusConsumer, ServiceEventConsumer } from './platform/route.js';
import { buildStateFunction } from './templates/routes.js';

export const busConsumers: BusConsumer[] = [
  { name: 'dispatchEvent', summary: 'Runs the scripts whose subscriptions match an event', sourcePrefix: 'platform.', ...dispatcherFunction },
  { name: 'runFlows', summary: 'Runs the flows an event or a schedule firing is for', sourcePrefix: 'platform.', ...flowRunnerFunction },
];

/** CodeBuild's state changes of template builds, on the default bus: read by lib/templates.ts (no local counterpart, the local builder reports itself). */
export const templateBuildStateConsumer: ServiceEventConsumer = { ...buildStateFunction, source: 'aws.codebuild', detailType: 'CodeBuild Build State Change' };
