import { httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templatesArea } from '../wiring.js';

export const handler = httpHandler(templateRoutes.updateTemplate, ({ input, caller, baseUrl }) =>
  templatesArea().templates.update(caller.userId, input, baseUrl),
);
