import { httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templatesArea } from '../wiring.js';

export const handler = httpHandler(templateRoutes.buildTemplate, ({ input, caller, baseUrl }) =>
  templatesArea().templates.build(caller.userId, input, baseUrl),
);
