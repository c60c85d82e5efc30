import { Reply, httpHandler } from '#platform/http.js';
import { documentRoutes } from '#functions/documents/routes.js';
import { graphsService } from '../wiring.js';

export const handler = httpHandler(documentRoutes.removeGraphMember, async ({ input, caller }) =>
  Reply.message(await graphsService().removeMember(caller, input.graphId, input.userId)),
);
