import { httpHandler } from '#platform/http.js';
import { documentRoutes } from '#functions/documents/routes.js';
import { documentService } from '../wiring.js';

export const handler = httpHandler(documentRoutes.getDocument, ({ input, caller }) => documentService().get(caller, input.documentId));
