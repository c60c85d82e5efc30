import { config } from '#platform/config.js';
import type { EventPublisher } from '#platform/ports.js';
import { eventBridgePublisher } from './aws/event-bus.js';
import { inProcessBus } from './local/event-bus.js';

export const eventPublisher = (): EventPublisher => (config.mode === 'local' ? inProcessBus : eventBridgePublisher);
