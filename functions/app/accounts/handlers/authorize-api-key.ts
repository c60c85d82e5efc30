import type { APIGatewayRequestAuthorizerEventV2, APIGatewaySimpleAuthorizerWithContextResult } from 'aws-lambda';
import { accountService } from '../wiring.js';
import type { Identity } from '#functions/accounts/key-cache.js';
import { requestBaseUrl } from '#platform/http.js';

/** Both header forms of the design; header names arrive lower-cased. */
export function presentedKey(headers: Record<string, string | undefined> | undefined): string | undefined {
  const direct = headers?.['x-api-key']?.trim();
  if (direct) return direct;
  const bearer = /^bearer\s+(\S+)\s*$/i.exec(headers?.authorization ?? '');
  return bearer?.[1];
}

// Always "authorized": the route's middleware turns a missing identity into 401 in the interface's envelope,
// which API Gateway's own authorizer refusal (a bare {"message":"Forbidden"}) cannot give.
export const handler = async (event: APIGatewayRequestAuthorizerEventV2): Promise<APIGatewaySimpleAuthorizerWithContextResult<Identity>> => ({
  isAuthorized: true,
  // The URL an OAuth access token must be bound to (RFC 8707): this request's origin and path.
  context: await accountService().resolveKey(presentedKey(event.headers), `${requestBaseUrl(event)}${event.rawPath}`),
});
