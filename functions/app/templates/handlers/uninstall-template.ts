import { Reply, httpHandler } from '#platform/http.js';
import { templateRoutes } from '#functions/templates/routes.js';
import { templatesArea } from '../wiring.js';

export const handler = httpHandler(templateRoutes.uninstallTemplate, async ({ input, caller }) =>
  Reply.message(await templatesArea().installations.uninstall(caller, input.installationId)),
);
