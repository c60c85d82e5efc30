import { httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templatesArea } from '../wiring.js';

export const handler = httpHandler(templateRoutes.getTemplateBuild, ({ input, caller, baseUrl }) =>
  templatesArea().templates.getBuild(caller.userId, input, baseUrl),
);
