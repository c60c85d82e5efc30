import { Reply, httpHandler } from '#platform/http.js';
import { buildOpenApiDocument } from '#platform/openapi.js';
import { settings } from '#platform/settings.js';
import { deployedRoutes, routes } from '../../routes.js';
import { platformRoutes } from '../platform-routes.js';

let document: string | undefined;

// The document is the body itself, not wrapped in the envelope, so OpenAPI tools can read it from the URL.
export const handler = httpHandler(platformRoutes.getOpenApiDocument, async ({ baseUrl }) => {
  // On AWS the document lists what API Gateway serves: the local-only stand-ins are not deployed there.
  document ??= JSON.stringify(buildOpenApiDocument(settings.mode === 'local' ? routes : deployedRoutes, baseUrl, settings.version));
  return new Reply(200, document, { 'Content-Type': 'application/json; charset=utf-8' });
});
