import { httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templatesArea } from '../wiring.js';

export const handler = httpHandler(templateRoutes.unpublishTemplate, ({ input, caller }) =>
  templatesArea().templates.unpublish(caller.userId, input.templateId),
);
