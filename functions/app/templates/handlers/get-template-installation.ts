import { httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templatesArea } from '../wiring.js';

export const handler = httpHandler(templateRoutes.getTemplateInstallation, ({ input, caller, baseUrl }) =>
  templatesArea().installations.get(caller.userId, input.installationId, baseUrl),
);
