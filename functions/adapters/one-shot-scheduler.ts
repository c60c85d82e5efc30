import { settings } from '#platform/settings.js';
import type { OneShotSchedulerPort } from '#platform/ports.js';
import { eventBridgeOneShots } from './aws/one-shot-scheduler.js';
import { localOneShots } from './local/one-shot-scheduler.js';

export const oneShotScheduler = (): OneShotSchedulerPort => (settings.mode === 'local' ? localOneShots() : eventBridgeOneShots);
