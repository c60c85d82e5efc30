import { httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templatesArea } from '../wiring.js';

export const handler = httpHandler(templateRoutes.checkTemplateRequirements, ({ input, caller }) =>
  templatesArea().installations.checkRequirements(caller.userId, input.templateId),
);
