import { httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templatesArea } from '../wiring.js';

export const handler = httpHandler(templateRoutes.listTemplates, ({ input, caller }) => templatesArea().templates.list(caller.userId, input));
