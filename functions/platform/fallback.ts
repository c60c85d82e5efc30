import { MethodNotAllowedError, RouteNotFoundError } from './errors.js';
import { errorResult } from './middlewares/envelope.js';
import type { HttpResult } from './middlewares/request-state.js';
import type { Route } from './route.js';
import { createRouteMatcher } from './route-match.js';

/** Answers what no route of `routes` takes: 405 with `Allow` when the path exists under another method, else 404. */
export function routeFallback(routes: Route[]): (method: string, path: string, requestId: string) => HttpResult {
  const match = createRouteMatcher(routes);
  return (method, path, requestId) => {
    const found = match(method, path);
    const error = found.kind === 'wrongMethod' ? new MethodNotAllowedError(method, path, found.allowed) : new RouteNotFoundError(method, path);
    return errorResult(error, requestId);
  };
}
