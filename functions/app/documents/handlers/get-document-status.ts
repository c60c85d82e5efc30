import { httpHandler } from '#platform/http.js';
import { documentRoutes } from '#functions/documents/routes.js';
import { documentService } from '../wiring.js';

export const handler = httpHandler(documentRoutes.getDocumentStatus, ({ input, caller }) => documentService().status(caller, input.documentId));
