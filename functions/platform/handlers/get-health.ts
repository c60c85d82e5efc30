import { config } from '../config.js';
import { httpHandler } from '../http.js';
import { platformRoutes } from '../routes.js';

export const handler = httpHandler(platformRoutes.getHealth, async () => ({ status: 'ok' as const, version: config.version, time: new Date().toISOString() }));
