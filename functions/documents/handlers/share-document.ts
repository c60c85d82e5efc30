import { httpHandler } from '#platform/http.js';
import { documentRoutes } from '../routes.js';
import { documentService } from '../wiring.js';

export const handler = httpHandler(documentRoutes.shareDocument, ({ input, caller }) => documentService().share(caller, input));
