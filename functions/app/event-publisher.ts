// The bus port of this process's mode. Each port of the root has a module of its own beside platform.ts: a handler's
// bundle holds the adapters (and AWS SDK clients) of the ports its area imports, not every adapter of the platform.
import { eventBridgePublisher } from '#adapters/aws/event-bus.js';
import { envNames } from '#platform/env-names.js';
import type { EventPublisher } from '#platform/ports.js';
import { readEnv } from '#platform/settings.js';
import { localAdapters } from './platform.js';

export const eventPublisher = (): EventPublisher =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().eventBus : eventBridgePublisher(readEnv(envNames.eventBusName));
