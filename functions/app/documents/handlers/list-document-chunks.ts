import { httpHandler } from '#platform/http.js';
import { documentRoutes } from '#functions/documents/routes.js';
import { documentService } from '../wiring.js';

export const handler = httpHandler(documentRoutes.listDocumentChunks, ({ input, caller }) => documentService().chunks(caller, input.documentId));
