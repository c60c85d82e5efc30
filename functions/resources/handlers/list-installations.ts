import { httpHandler } from '#platform/http.js';
import { installationService } from '../installation-service.js';
import { resourceRoutes } from '../routes.js';

export const handler = httpHandler(resourceRoutes.listInstallations, ({ input, caller }) => installationService().list(caller, input));
