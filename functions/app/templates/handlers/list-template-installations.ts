import { httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templatesArea } from '../wiring.js';

export const handler = httpHandler(templateRoutes.listTemplateInstallations, ({ input, caller, baseUrl }) =>
  templatesArea().installations.list(caller.userId, input, baseUrl),
);
