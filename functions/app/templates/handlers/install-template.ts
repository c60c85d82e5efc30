import { httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templatesArea } from '../wiring.js';

export const handler = httpHandler(templateRoutes.installTemplate, ({ input, caller, baseUrl }) =>
  templatesArea().installations.install(caller, input, baseUrl),
);
