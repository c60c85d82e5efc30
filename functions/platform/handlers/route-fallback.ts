import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { routes } from '../../routes.js';
import { MethodNotAllowedError, RouteNotFoundError } from '../errors.js';
import { type HttpResult, errorResult } from '../http.js';
import { createRouteMatcher } from '../route-match.js';

const match = createRouteMatcher(routes);

/** Answers what no route takes: 405 with `Allow` when the path exists under another method, else 404. */
export function fallbackResult(method: string, path: string, requestId: string): HttpResult {
  const found = match(method, path);
  const error = found.kind === 'wrongMethod' ? new MethodNotAllowedError(method, path, found.allowed) : new RouteNotFoundError(method, path);
  return errorResult(error, requestId);
}

export const handler = async (event: APIGatewayProxyEventV2): Promise<HttpResult> =>
  fallbackResult(event.requestContext.http.method, event.rawPath, event.requestContext.requestId);
