import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';

export const handler = httpHandler(scriptRoutes.restPublishScript, async ({ input, caller }) => {
  const { scriptId, ...changes } = input;
  const script = await scriptService().publish(caller.userId, scriptId, changes);
  return { id: script.scriptId, status: script.status, publishedAt: script.publishedAt };
});
