import { config } from '#platform/config.js';
import type { SchedulerPort } from '#platform/ports.js';
import { eventBridgeScheduler } from './aws/scheduler.js';
import { localScheduler } from './local/scheduler.js';

export const scheduler = (): SchedulerPort => (config.mode === 'local' ? localScheduler() : eventBridgeScheduler);
