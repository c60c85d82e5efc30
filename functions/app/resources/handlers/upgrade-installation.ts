import { httpHandler } from '#platform/http.js';
import { installationService } from '../wiring.js';
import { resourceRoutes } from '#functions/resources/routes.js';

export const handler = httpHandler(resourceRoutes.upgradeInstallation, ({ input, caller }) => installationService().upgrade(caller, input.installationId));
