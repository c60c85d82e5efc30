import { httpHandler } from '#platform/http.js';
import { installationService } from '../installation-service.js';
import { resourceRoutes } from '../routes.js';

export const handler = httpHandler(resourceRoutes.upgradeInstallation, ({ input, caller }) => installationService().upgrade(caller, input.installationId));
