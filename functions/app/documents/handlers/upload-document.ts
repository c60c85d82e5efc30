import { withBackgroundRuns } from '#platform/background-handler.js';
import { httpHandler } from '#platform/http.js';
import { documentRoutes } from '#functions/documents/routes.js';
import { documentService, processDocument } from '../wiring.js';

export const handler = withBackgroundRuns(
  httpHandler(documentRoutes.uploadDocument, ({ input, caller }) => documentService().upload(caller, input)),
  processDocument,
);
