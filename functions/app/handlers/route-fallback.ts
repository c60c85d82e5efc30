import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { routeFallback } from '#platform/fallback.js';
import type { HttpResult } from '#platform/http.js';
import { routes } from '../../routes.js';

const fallbackResult = routeFallback(routes);

/** API Gateway's `$default` route: 405 with `Allow` when the path exists under another method, else 404. */
export const handler = async (event: APIGatewayProxyEventV2): Promise<HttpResult> =>
  fallbackResult(event.requestContext.http.method, event.rawPath, event.requestContext.requestId);
