import { settings } from '../settings.js';
import { httpHandler } from '../http.js';
import { platformRoutes } from '../routes.js';

export const handler = httpHandler(platformRoutes.getHealth, async () => ({ status: 'ok' as const, version: settings.version, time: new Date().toISOString() }));
