import { httpHandler } from '#platform/http.js';
import { documentRoutes } from '#functions/documents/routes.js';
import { documentService } from '../wiring.js';

export const handler = httpHandler(documentRoutes.unshareDocument, ({ input, caller }) => documentService().unshare(caller, input.documentId, input.graphId));
