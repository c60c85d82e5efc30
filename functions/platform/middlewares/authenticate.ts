// 401 for a missing, unknown or revoked identity; 403 for a key without the route's scopes.
import { checkAdminKey } from '../admin-key.js';
import type { Caller } from '../caller.js';
import { ForbiddenError, UnauthorizedError } from '../errors.js';
import { holdsScope, mayHoldScope } from '../scopes.js';
import type { HttpEvent, RequestState } from './request-state.js';

/** What the authorizer's reason for no identity tells the caller; a missing or unknown key gets the default message. */
const refusals: Record<string, string> = {
  revoked: 'this API key has been revoked',
  expired: 'this access token has expired; refresh it',
  // OAuth access tokens are bound to the MCP endpoint (RFC 8707): the REST API takes API keys only.
  wrong_resource: 'this access token is bound to another resource: OAuth access tokens are accepted at /mcp only; use an API key here',
};

/** The caller the API key authorizer resolved (on AWS and locally alike); undefined without a valid key. */
export function authorizerCaller(event: HttpEvent): Caller | undefined {
  const identity = event.requestContext.authorizer?.lambda;
  if (!identity?.userId) return undefined;
  return {
    userId: String(identity.userId),
    keyId: String(identity.keyId),
    scopes: String(identity.scopes ?? '')
      .split(',')
      .filter(Boolean),
  };
}

/** Sets `state.caller` for `apiKey` routes; checks the admin key for `admin` routes; public routes pass. */
export async function authenticate(state: RequestState, event: HttpEvent): Promise<void> {
  const { route } = state;
  if (route.auth === 'admin') return checkAdminKey(event.headers['x-admin-key']);
  if (route.auth !== 'apiKey') return;
  const caller = authorizerCaller(event);
  if (!caller) {
    const reason = event.requestContext.authorizer?.lambda?.reason;
    throw new UnauthorizedError(typeof reason === 'string' && Object.hasOwn(refusals, reason) ? refusals[reason] : undefined);
  }
  state.caller = caller;
}

/**
 * Runs after the rate limit, so a key without the scope still counts its request; once before the input is read and
 * once with it, for scopes that name an object of the input (`scripts:{scriptId}:execute`).
 */
export function checkScopes(state: RequestState, input?: Record<string, unknown>): void {
  const { route, caller } = state;
  if (!caller || !route.scopes?.length) return;
  const allowed = input ? holdsScope(caller.scopes, route.scopes, input) : mayHoldScope(caller.scopes, route.scopes);
  if (!allowed) throw new ForbiddenError(`this API key lacks the scope ${route.scopes.join(' or ')}`, { requiredScopes: route.scopes });
}
