import { httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templatesArea } from '../wiring.js';

export const handler = httpHandler(templateRoutes.upgradeTemplateInstallation, ({ input, caller, baseUrl }) =>
  templatesArea().installations.upgrade(caller, input, baseUrl),
);
