// What MCP clients discover before anything else: the protected resource (RFC 9728) and its authorization server
// (RFC 8414), both at the platform's own origin.
import { baseScopes, scopes } from '#platform/scopes.js';

/** The MCP endpoint: the one resource OAuth access tokens are issued for. */
export const mcpResourcePath = '/mcp';

export const mcpResource = (origin: string) => `${origin}${mcpResourcePath}`;

/** What a client may ask for: every scope but `*`; a grant never holds more than the consenting key does. */
export const oauthScopes: readonly string[] = baseScopes.filter((scope) => scope !== scopes.all);

export function protectedResourceMetadata(origin: string) {
  return {
    resource: mcpResource(origin),
    authorization_servers: [origin],
    scopes_supported: oauthScopes,
    bearer_methods_supported: ['header'],
    resource_name: 'Automation platform MCP server',
  };
}

export function authorizationServerMetadata(origin: string) {
  return {
    issuer: origin,
    authorization_endpoint: `${origin}/oauth/authorize`,
    token_endpoint: `${origin}/oauth/token`,
    registration_endpoint: `${origin}/oauth/register`,
    scopes_supported: oauthScopes,
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none', 'client_secret_post', 'client_secret_basic'],
    authorization_response_iss_parameter_supported: true,
  };
}
