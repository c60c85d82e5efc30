import { httpHandler } from '#platform/http.js';
import { withDocumentJobs } from '../job-handler.js';
import { documentRoutes } from '../routes.js';
import { documentService } from '../service.js';

export const handler = withDocumentJobs(httpHandler(documentRoutes.completeUpload, ({ input, caller }) => documentService().completeUpload(caller, input.documentId)));
