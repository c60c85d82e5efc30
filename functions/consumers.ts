// The functions the platform bus delivers to, read by lib/bus-consumers.ts (a rule each); locally the
// in-process bus calls the same code (functions/adapters/local/event-bus.ts).
import { dispatcherFunction } from './events/routes.js';
import { flowRunnerFunction } from './flows/routes.js';
import type { BusConsumer } from './platform/route.js';

export const busConsumers: BusConsumer[] = [
  { name: 'dispatchEvent', summary: 'Runs the scripts whose subscriptions match an event', sourcePrefix: 'platform.', ...dispatcherFunction },
  { name: 'runFlows', summary: 'Runs the flows an event or a schedule firing is for', sourcePrefix: 'platform.', ...flowRunnerFunction },
];
