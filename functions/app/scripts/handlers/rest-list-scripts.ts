import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';
import { rest } from '#functions/scripts/views/views.js';

export const handler = httpHandler(scriptRoutes.restListScripts, async ({ input, caller }) => {
  const scripts = await scriptService().listOwned(caller.userId, input.status);
  return {
    scripts: scripts.slice(input.offset, input.offset + input.limit).map(rest.listItem),
    total: scripts.length,
    limit: input.limit,
    offset: input.offset,
  };
});
