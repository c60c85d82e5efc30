import { httpHandler } from '#platform/http.js';
import { documentRoutes } from '#functions/documents/routes.js';
import { graphsService } from '../wiring.js';

export const handler = httpHandler(documentRoutes.listGraphs, ({ caller }) => graphsService().list(caller));
