import { Reply, httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templatesArea } from '../wiring.js';

export const handler = httpHandler(templateRoutes.deleteTemplate, async ({ input, caller }) =>
  Reply.message(await templatesArea().templates.remove(caller.userId, input.templateId)),
);
