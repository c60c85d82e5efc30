import { httpHandler } from '#platform/http.js';
import { settings } from '#platform/settings.js';
import { platformRoutes } from '../platform-routes.js';

export const handler = httpHandler(platformRoutes.getHealth, async () => ({
  status: 'ok' as const,
  version: settings.version,
  time: new Date().toISOString(),
}));
