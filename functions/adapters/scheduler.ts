import { settings } from '#platform/settings.js';
import type { SchedulerPort } from '#platform/ports.js';
import { eventBridgeScheduler } from './aws/scheduler.js';
import { localScheduler } from './local/scheduler.js';

export const scheduler = (): SchedulerPort => (settings.mode === 'local' ? localScheduler() : eventBridgeScheduler);

/** Resolves the scheduler on each call: the local one is replaced when the local platform restarts in-process. */
export const liveScheduler: SchedulerPort = { put: (schedule) => scheduler().put(schedule), remove: (name) => scheduler().remove(name) };
