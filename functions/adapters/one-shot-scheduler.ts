import { config } from '#platform/config.js';
import type { OneShotSchedulerPort } from '#platform/ports.js';
import { eventBridgeOneShots } from './aws/one-shot-scheduler.js';
import { localOneShots } from './local/one-shot-scheduler.js';

export const oneShotScheduler = (): OneShotSchedulerPort => (config.mode === 'local' ? localOneShots() : eventBridgeOneShots);
