import { defineRoutes } from '#platform/route.js';
import { scopes } from '#platform/scopes.js';
import { AuthorizationRequestView, ConsentInput, ConsentOutcome, OAuthClientBody, OAuthParameters, RequestIdInput } from './schemas.js';

const resourceMetadata = {
  method: 'GET',
  auth: 'public',
  summary: 'OAuth protected resource metadata of the MCP endpoint (RFC 9728): the resource and its authorization server',
} as const;

/** A grant is a key an MCP client holds: consenting to one takes the scope that issues keys. */
const consentScopes = [scopes.keysManage];

export const oauthRoutes = defineRoutes('oauth', {
  getProtectedResourceMetadata: { ...resourceMetadata, path: '/.well-known/oauth-protected-resource' },
  // RFC 9728 §3.1: clients ask first at the well-known path followed by the resource's own path.
  getMcpProtectedResourceMetadata: { ...resourceMetadata, path: '/.well-known/oauth-protected-resource/mcp' },
  getAuthorizationServerMetadata: {
    method: 'GET',
    path: '/.well-known/oauth-authorization-server',
    auth: 'public',
    summary: 'OAuth authorization server metadata (RFC 8414): endpoints, PKCE S256, grant types',
  },
  registerClient: {
    method: 'POST',
    path: '/oauth/register',
    auth: 'public',
    errorFormat: 'oauth',
    summary: 'Register an OAuth client (RFC 7591 dynamic client registration)',
    description:
      'Answers 201 with `client_id` (and `client_secret` unless `token_endpoint_auth_method` is `none`, the default). Redirect URIs must be https, or http to a loopback address. ' +
      'Errors are RFC 7591 `{error, error_description}`; registrations are rate-limited per address, and one that no user consents to within a day expires.',
    input: OAuthClientBody,
    tables: { oauthClients: 'write', rateLimits: 'write' },
  },
  authorize: {
    method: 'GET',
    path: '/oauth/authorize',
    auth: 'public',
    summary: 'OAuth authorization endpoint: authorization code with PKCE (S256 only); redirects to the console’s consent page',
    description:
      'Answers 302 to the console’s consent page (`#/authorize?requestId=...`). An unknown `client_id` or a `redirect_uri` the client did not register is answered here (VALIDATION_ERROR or NOT_FOUND), never redirected; ' +
      'other problems go back to the redirect URI as `error` (RFC 6749 §4.1.2.1).',
    input: OAuthParameters,
    tables: { oauthClients: 'read', oauthAuthorizations: 'write' },
  },
  getAuthorizationRequest: {
    method: 'GET',
    path: '/api/sdk/v1/oauth/requests/{requestId}',
    auth: 'apiKey',
    scopes: consentScopes,
    summary: 'An OAuth client’s authorization request, as the consent page shows it: client, redirect URI, scopes asked',
    input: RequestIdInput,
    output: AuthorizationRequestView,
    tables: { oauthAuthorizations: 'read', oauthClients: 'read' },
  },
  decideConsent: {
    method: 'POST',
    path: '/api/sdk/v1/oauth/consent',
    auth: 'apiKey',
    scopes: consentScopes,
    summary: 'Approve or deny an OAuth client’s authorization request; answers where to send the browser',
    description:
      '`redirectTo` is the client’s redirect URI with a one-time `code` (valid two minutes) and `state`, or `error=access_denied`. ' +
      '`scopes` narrows what the client asked for; a grant never holds a scope the caller’s key lacks (FORBIDDEN). A request decided already is CONFLICT; one another user decided is NOT_FOUND.',
    input: ConsentInput,
    output: ConsentOutcome,
    tables: { oauthAuthorizations: 'write', apiKeys: 'read' },
  },
  exchangeToken: {
    method: 'POST',
    path: '/oauth/token',
    auth: 'public',
    errorFormat: 'oauth',
    summary: 'OAuth token endpoint: authorization_code (with code_verifier) and refresh_token (rotated on every use)',
    description:
      'Form-encoded (RFC 6749). Access tokens last an hour and are accepted at `/mcp` only; each refresh returns a new refresh token, and a spent one presented again revokes the grant. ' +
      'Errors are RFC 6749 `{error, error_description}` (400, or 401 `invalid_client`).',
    body: 'form',
    input: OAuthParameters,
    tables: { oauthClients: 'write', oauthAuthorizations: 'write', apiKeys: 'write' },
  },
});
