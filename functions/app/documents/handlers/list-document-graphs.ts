import { httpHandler } from '#platform/http.js';
import { documentRoutes } from '#functions/documents/routes.js';
import { documentService } from '../wiring.js';

export const handler = httpHandler(documentRoutes.listDocumentGraphs, ({ input, caller }) => documentService().graphsOf(caller, input.documentId));
