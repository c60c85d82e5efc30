import { httpHandler } from '#platform/http.js';
import { documentRoutes } from '#functions/documents/routes.js';
import { graphsService } from '../wiring.js';

export const handler = httpHandler(documentRoutes.addGraphMember, ({ input, caller }) => graphsService().addMember(caller, input.graphId, input.userId));
