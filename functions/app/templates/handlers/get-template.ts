import { httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templatesArea } from '../wiring.js';

export const handler = httpHandler(templateRoutes.getTemplate, async ({ input, caller, baseUrl }) => {
  const { templates } = templatesArea();
  return templates.view(await templates.find(caller.userId, input.templateId, true), baseUrl);
});
