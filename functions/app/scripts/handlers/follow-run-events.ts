import { httpHandler } from '#platform/http.js';
import { StreamReply } from '#platform/event-stream.js';
import { runEvents } from '#functions/app/run-operations.js';
import { runRoutes } from '#functions/scripts/routes.js';

export const handler = httpHandler(runRoutes.followRunEvents, async ({ input, caller, headers }) => {
  const events = await runEvents().open(caller, input.executionId, headers['last-event-id'] ?? input.lastEventId);
  return new StreamReply(events);
});
