import { httpHandler } from '#platform/http.js';
import { withDocumentJobs } from '#functions/documents/job-handler.js';
import { documentRoutes } from '#functions/documents/routes.js';
import { documentService, processDocument } from '../wiring.js';

export const handler = withDocumentJobs(
  httpHandler(documentRoutes.completeUpload, ({ input, caller }) => documentService().completeUpload(caller, input.documentId)),
  processDocument,
);
