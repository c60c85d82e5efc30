import { httpHandler } from '#platform/http.js';
import { scriptRoutes } from '#functions/scripts/routes.js';
import { scriptService } from '../wiring.js';

export const handler = httpHandler(scriptRoutes.publishScript, async ({ input, caller }) => {
  const { scriptId, ...changes } = input;
  const script = await scriptService().publish(caller.userId, scriptId, changes);
  return { scriptId, isPublished: true, status: script.status, publishedAt: script.publishedAt };
});
