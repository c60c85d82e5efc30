import { settings } from '#platform/settings.js';
import type { EventPublisher } from '#platform/ports.js';
import { eventBridgePublisher } from './aws/event-bus.js';
import { inProcessBus } from './local/event-bus.js';

export const eventPublisher = (): EventPublisher => (settings.mode === 'local' ? inProcessBus : eventBridgePublisher);
