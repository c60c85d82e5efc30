// An MCP client's side of OAuth for tests: the SDK's own `auth()` flow with an in-memory provider, the console's
// consent through the API as the signed-in user, and the platform's authorizer asked as API Gateway would ask it.
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { APIGatewayRequestAuthorizerEventV2 } from 'aws-lambda';
import { handler as authorizer } from '../../functions/app/accounts/handlers/authorize-api-key.js';
import { dynamo, tableName } from '../../functions/platform/dynamo.js';
import { sha256Hex } from '../../functions/platform/ids.js';
import type { TestApi, TestUser } from './platform.js';

export const redirectUrl = 'http://127.0.0.1:7777/callback';

/** What a standard MCP client keeps between runs, in memory; `authorizationUrl` is where it would send the browser. */
export class MemoryOAuthProvider implements OAuthClientProvider {
  information?: OAuthClientInformationMixed;
  saved?: OAuthTokens;
  verifier = '';
  authorizationUrl?: URL;
  constructor(readonly clientMetadata: OAuthClientMetadata = agentMetadata()) {}
  get redirectUrl() {
    return this.clientMetadata.redirect_uris[0];
  }
  state = () => 'state-42';
  clientInformation = () => this.information;
  saveClientInformation = (information: OAuthClientInformationMixed) => {
    this.information = information;
  };
  tokens = () => this.saved;
  saveTokens = (tokens: OAuthTokens) => {
    this.saved = tokens;
  };
  redirectToAuthorization = (url: URL) => {
    this.authorizationUrl = url;
  };
  saveCodeVerifier = (verifier: string) => {
    this.verifier = verifier;
  };
  codeVerifier = () => this.verifier;
}

export const agentMetadata = (overrides: Partial<OAuthClientMetadata> = {}): OAuthClientMetadata => ({
  client_name: 'Test agent',
  redirect_uris: [redirectUrl],
  grant_types: ['authorization_code', 'refresh_token'],
  response_types: ['code'],
  token_endpoint_auth_method: 'none',
  ...overrides,
});

export const mcpUrl = (api: TestApi) => `${api.baseUrl}/mcp`;

/** Follows the authorization URL the way a browser would, once: the platform's 302. */
export async function followAuthorization(url: URL | string): Promise<{ status: number; location: string | null; body: string }> {
  const response = await fetch(url, { redirect: 'manual' });
  return { status: response.status, location: response.headers.get('location'), body: await response.text() };
}

export const requestIdOf = (location: string) => new URL(location.replace('/#/', '/')).searchParams.get('requestId')!;

/** The SDK client's flow up to the consent page: registration, PKCE, the redirect to the console. */
export async function startAuthorization(api: TestApi, provider = new MemoryOAuthProvider()) {
  const outcome = await auth(provider, { serverUrl: mcpUrl(api) });
  if (outcome !== 'REDIRECT' || !provider.authorizationUrl) throw new Error(`expected a redirect, got ${outcome}`);
  const followed = await followAuthorization(provider.authorizationUrl);
  if (followed.status !== 302 || !followed.location?.includes('requestId=')) throw new Error(`authorize answered ${followed.status} ${followed.body}`);
  return { provider, requestId: requestIdOf(followed.location) };
}

export const consent = (api: TestApi, user: TestUser, body: Record<string, unknown>) => api.as(user.apiKey).post('/api/sdk/v1/oauth/consent', body);

/** The whole flow: the user approves, the client exchanges the code; the provider then holds the tokens. */
export async function connectAgent(api: TestApi, user: TestUser, provider = new MemoryOAuthProvider(), scopes?: string[]) {
  const { requestId } = await startAuthorization(api, provider);
  const approved = await consent(api, user, { requestId, approve: true, ...(scopes && { scopes }) });
  if (approved.status !== 200) throw new Error(`consent answered ${approved.status} ${approved.text}`);
  const code = new URL(approved.body.data.redirectTo).searchParams.get('code')!;
  const outcome = await auth(provider, { serverUrl: mcpUrl(api), authorizationCode: code });
  if (outcome !== 'AUTHORIZED') throw new Error(`expected tokens, got ${outcome}`);
  return { provider, tokens: provider.saved!, requestId, code };
}

/** A form post to the token endpoint, as any OAuth client sends it. */
export async function tokenRequest(api: TestApi, form: Record<string, string>, headers: Record<string, string> = {}) {
  const response = await fetch(`${api.baseUrl}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form).toString(),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: JSON.parse(text) as Record<string, unknown>, text };
}

/** What the platform's authorizer resolves for `token` on `method path` of this server, as API Gateway would ask. */
export async function identityAt(api: TestApi, token: string, path = '/mcp') {
  const host = new URL(api.baseUrl).host;
  const event = {
    version: '2.0',
    type: 'REQUEST',
    routeKey: `POST ${path}`,
    rawPath: path,
    rawQueryString: '',
    headers: { host, authorization: `Bearer ${token}` },
    requestContext: { domainName: host, http: { method: 'POST', path } },
  } as unknown as APIGatewayRequestAuthorizerEventV2;
  return (await authorizer(event)).context as Record<string, unknown>;
}

/** Moves a token's expiry into the past, as an hour going by would. */
export async function expireToken(token: string): Promise<void> {
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName('apiKeys'),
      Key: { keyHash: sha256Hex(token) },
      UpdateExpression: 'SET expiresAt = :past',
      ExpressionAttributeValues: { ':past': 1 },
    }),
  );
}
