import { httpHandler } from '#platform/http.js';
import { installationService } from '../wiring.js';
import { resourceRoutes } from '#functions/resources/routes.js';

export const handler = httpHandler(resourceRoutes.getInstallationUsage, ({ input, caller }) => installationService().usage(caller, input.installationId));
