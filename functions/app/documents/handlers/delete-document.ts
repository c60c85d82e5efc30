import { Reply, httpHandler } from '#platform/http.js';
import { documentRoutes } from '#functions/documents/routes.js';
import { documentService } from '../wiring.js';

// The interface answers `chunksDeleted` in data; the envelope's delete confirmation adds a message.
export const handler = httpHandler(documentRoutes.deleteDocument, async ({ input, caller }) => {
  const deleted = await documentService().remove(caller, input.documentId);
  return new Reply(200, { success: true, data: deleted, message: `document ${deleted.documentId} deleted with ${deleted.chunksDeleted} chunks` });
});
