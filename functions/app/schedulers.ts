// The scheduler port of this process's mode (EventBridge Scheduler on AWS), recurring and one-time schedules alike.
import { createEventBridgeScheduler } from '#adapters/aws/scheduler.js';
import type { SchedulerPort } from '#platform/ports.js';
import { localAdapters } from './platform.js';

// One per container, made on first use: a module-level instance would sit in every bundle that imports this module.
let awsScheduler: SchedulerPort | undefined;

export const scheduler = (): SchedulerPort =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().scheduler() : (awsScheduler ??= createEventBridgeScheduler());

/** Resolves the scheduler on each call: services built once keep it, and the local one restarts with the platform. */
export const liveScheduler: SchedulerPort = {
  put: (schedule) => scheduler().put(schedule),
  putOnce: (once) => scheduler().putOnce(once),
  remove: (name) => scheduler().remove(name),
};
