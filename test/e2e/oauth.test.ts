// OAuth 2.1 for MCP clients, driven by the MCP SDK's own client flow (`auth()`) against the local platform over HTTP.
import { auth } from '@modelcontextprotocol/sdk/client/auth.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  MemoryOAuthProvider,
  agentMetadata,
  connectAgent,
  consent,
  expireToken,
  followAuthorization,
  identityAt,
  mcpUrl,
  redirectUrl,
  startAuthorization,
  tokenRequest,
} from '../support/oauth.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

let api: TestApi;
let owner: TestUser;
let other: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, other] = await Promise.all([api.givenUser(), api.givenUser()]);
});
afterAll(() => api.stop());

const grantsOf = async (user: TestUser) =>
  ((await api.as(user.apiKey).get('/api/sdk/v1/keys?limit=100')).body.data.keys as Array<Record<string, unknown>>).filter((key) => key.kind === 'oauth');

describe('oauth: discovery', () => {
  it('serves protected resource metadata at both well-known paths and the authorization server metadata', async () => {
    // Act
    const [root, suffixed, server] = await Promise.all([
      api.request('GET', '/.well-known/oauth-protected-resource'),
      api.request('GET', '/.well-known/oauth-protected-resource/mcp'),
      api.request('GET', '/.well-known/oauth-authorization-server'),
    ]);
    // Assess
    expect(root.status).toBe(200);
    expect(root.body).toMatchObject({ resource: `${api.baseUrl}/mcp`, authorization_servers: [api.baseUrl] });
    expect(suffixed.body).toEqual(root.body);
    expect(server.body).toMatchObject({
      issuer: api.baseUrl,
      authorization_endpoint: `${api.baseUrl}/oauth/authorize`,
      token_endpoint: `${api.baseUrl}/oauth/token`,
      registration_endpoint: `${api.baseUrl}/oauth/register`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: expect.arrayContaining(['none']),
    });
  });
});

describe('oauth: the SDK client flow', () => {
  it('registers, asks consent, gets resource-bound tokens, refreshes with rotation, and a reused refresh token revokes the grant', async () => {
    // Prepare
    const { provider, requestId } = await startAuthorization(api);
    const shown = await api.as(owner.apiKey).get(`/api/sdk/v1/oauth/requests/${requestId}`);
    // Act: the user approves two of the scopes asked; the client exchanges the code
    const approved = await consent(api, owner, { requestId, approve: true, scopes: ['scripts:execute', 'resources:call'] });
    const back = new URL(approved.body.data.redirectTo);
    const exchanged = await auth(provider, { serverUrl: mcpUrl(api), authorizationCode: back.searchParams.get('code')! });
    const first = provider.saved!;
    // Assess: the consent page's view, the redirect, the tokens
    expect(shown.status).toBe(200);
    expect(shown.body.data).toMatchObject({ clientName: 'Test agent', redirectUri: redirectUrl, resource: `${api.baseUrl}/mcp`, status: 'pending' });
    expect(shown.body.data.scopes).toContain('scripts:execute');
    expect(`${back.origin}${back.pathname}`).toBe(redirectUrl);
    expect(back.searchParams.get('state')).toBe('state-42');
    expect(back.searchParams.get('iss')).toBe(api.baseUrl);
    expect(exchanged).toBe('AUTHORIZED');
    expect(first).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'scripts:execute resources:call' });
    // The token speaks for the owner at /mcp, with the approved scopes, and nowhere else
    const atMcp = await identityAt(api, first.access_token);
    expect(atMcp).toMatchObject({ userId: owner.userId, scopes: 'scripts:execute,resources:call' });
    expect(await identityAt(api, first.access_token, '/api/sdk/v1/me')).toEqual({ reason: 'wrong_resource' });
    const rest = await api.request('GET', '/api/sdk/v1/me', { headers: { authorization: `Bearer ${first.access_token}` } });
    expect(rest.status).toBe(401);
    expect(rest.body.error.message).toMatch(/bound to another resource/);
    // Listed beside the API keys
    const [grant] = await grantsOf(owner);
    expect(grant).toMatchObject({ keyId: atMcp.keyId, kind: 'oauth', name: 'Test agent', clientId: provider.information!.client_id, revokedAt: null });
    expect(grant!.lastUsedAt).toEqual(expect.any(String));

    // Act: refresh (the SDK refreshes when it holds a refresh token)
    const refreshed = await auth(provider, { serverUrl: mcpUrl(api) });
    const second = provider.saved!;
    // Assess: rotated; the old access token is refused, the new one works
    expect(refreshed).toBe('AUTHORIZED');
    expect(second.refresh_token).not.toBe(first.refresh_token);
    expect(second.access_token).not.toBe(first.access_token);
    expect(await identityAt(api, first.access_token)).toEqual({ reason: 'revoked' });
    expect(await identityAt(api, second.access_token)).toMatchObject({ userId: owner.userId });

    // Act: the first refresh token comes back (a thief, or a replay)
    const replayed = await tokenRequest(api, { grant_type: 'refresh_token', refresh_token: first.refresh_token!, client_id: provider.information!.client_id });
    // Assess: refused, and the whole grant is revoked
    expect(replayed.status).toBe(400);
    expect(replayed.body).toMatchObject({ error: 'invalid_grant', error_description: expect.stringMatching(/already used/) });
    expect(replayed.body).not.toHaveProperty('access_token');
    expect(await identityAt(api, second.access_token)).toEqual({ reason: 'revoked' });
    const afterReuse = await tokenRequest(api, {
      grant_type: 'refresh_token',
      refresh_token: second.refresh_token!,
      client_id: provider.information!.client_id,
    });
    expect(afterReuse.body.error).toBe('invalid_grant');
    expect((await grantsOf(owner)).find((key) => key.keyId === grant!.keyId)?.revokedAt).toEqual(expect.any(String));
  });

  it('revoking the grant like a key kills its access and refresh tokens at once', async () => {
    // Prepare
    const { provider, tokens } = await connectAgent(api, owner);
    const { keyId } = await identityAt(api, tokens.access_token);
    // Act
    const revoked = await api.as(owner.apiKey).delete(`/api/sdk/v1/keys/${keyId}`);
    // Assess
    expect(revoked.status).toBe(200);
    expect(await identityAt(api, tokens.access_token)).toEqual({ reason: 'revoked' });
    const refresh = await tokenRequest(api, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: provider.information!.client_id });
    expect(refresh.status).toBe(400);
    expect(refresh.body.error).toBe('invalid_grant');
  });

  it('a denial sends the browser back with access_denied and issues nothing', async () => {
    // Prepare
    const { requestId } = await startAuthorization(api);
    const before = (await grantsOf(other)).length;
    // Act
    const denied = await consent(api, other, { requestId, approve: false });
    // Assess
    expect(denied.status).toBe(200);
    const back = new URL(denied.body.data.redirectTo);
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('code')).toBeNull();
    expect((await grantsOf(other)).length).toBe(before);
  });

  it('a confidential client authenticates with its secret, by Basic or in the form', async () => {
    // Prepare
    const provider = new MemoryOAuthProvider(agentMetadata({ client_name: 'Confidential agent', token_endpoint_auth_method: 'client_secret_basic' }));
    // Act
    const { tokens } = await connectAgent(api, owner, provider);
    const { client_id: clientId, client_secret: secret } = provider.information as { client_id: string; client_secret: string };
    const inForm = await tokenRequest(api, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: clientId, client_secret: secret });
    // Assess
    expect(secret).toMatch(/^ocs_/);
    expect(inForm.status).toBe(200);
    expect(inForm.body.access_token).toEqual(expect.any(String));
  });
});

describe('oauth: bad input gets an OAuth error or the envelope, never a 500, and issues nothing', () => {
  it('refuses a wrong PKCE verifier, then accepts the right one once; a reused code revokes what it bought', async () => {
    // Prepare
    const { provider, requestId } = await startAuthorization(api);
    const approved = await consent(api, other, { requestId, approve: true });
    const code = new URL(approved.body.data.redirectTo).searchParams.get('code')!;
    const clientId = provider.information!.client_id;
    const exchange = (verifier: string) =>
      tokenRequest(api, { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: redirectUrl, client_id: clientId });
    // Act
    const wrong = await exchange('x'.repeat(43));
    const right = await exchange(provider.verifier);
    const reused = await exchange(provider.verifier);
    // Assess
    expect(wrong.status).toBe(400);
    expect(wrong.body).toEqual({ error: 'invalid_grant', error_description: expect.stringMatching(/code_verifier/) });
    expect(wrong.headers.get('cache-control')).toBe('no-store');
    expect(right.status).toBe(200);
    expect(reused.status).toBe(400);
    expect(reused.body.error).toBe('invalid_grant');
    expect(await identityAt(api, right.body.access_token as string)).toEqual({ reason: 'revoked' });
  });

  it('refuses an expired access token', async () => {
    // Prepare: the token is expired before anything resolved (and cached) it
    const { tokens } = await connectAgent(api, other);
    await expireToken(tokens.access_token);
    // Act
    const identity = await identityAt(api, tokens.access_token);
    // Assess
    expect(identity).toEqual({ reason: 'expired' });
  });

  it('answers plain PKCE, a missing challenge and another resource at the redirect URI, and stores nothing', async () => {
    // Prepare
    const { provider } = await startAuthorization(api);
    const asked = new URL(provider.authorizationUrl!);
    const variant = (change: (url: URL) => void) => {
      const url = new URL(asked);
      change(url);
      return followAuthorization(url);
    };
    // Act
    const plain = await variant((url) => url.searchParams.set('code_challenge_method', 'plain'));
    const none = await variant((url) => url.searchParams.delete('code_challenge'));
    const elsewhere = await variant((url) => url.searchParams.set('resource', 'https://attacker.example/mcp'));
    const wrongType = await variant((url) => url.searchParams.set('response_type', 'token'));
    // Assess
    for (const [answer, error] of [
      [plain, 'invalid_request'],
      [none, 'invalid_request'],
      [elsewhere, 'invalid_target'],
      [wrongType, 'unsupported_response_type'],
    ] as const) {
      expect(answer.status).toBe(302);
      const back = new URL(answer.location!);
      expect(`${back.origin}${back.pathname}`).toBe(redirectUrl);
      expect(back.searchParams.get('error')).toBe(error);
      expect(back.searchParams.get('state')).toBe('state-42');
    }
  });

  it('never redirects to a redirect URI the client did not register, nor for an unknown client', async () => {
    // Prepare
    const { provider } = await startAuthorization(api);
    const unregistered = new URL(provider.authorizationUrl!);
    unregistered.searchParams.set('redirect_uri', 'https://attacker.example/steal');
    const unknownClient = new URL(provider.authorizationUrl!);
    unknownClient.searchParams.set('client_id', 'cli_nobody');
    // Act
    const [foreign, nobody] = await Promise.all([followAuthorization(unregistered), followAuthorization(unknownClient)]);
    // Assess
    expect(foreign.status).toBe(400);
    expect(foreign.location).toBeNull();
    expect(JSON.parse(foreign.body).error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'redirect_uri' } });
    expect(nobody.status).toBe(404);
    expect(nobody.location).toBeNull();
  });

  it('refuses a token request for another resource than the one authorized', async () => {
    // Prepare
    const { provider, requestId } = await startAuthorization(api);
    const approved = await consent(api, other, { requestId, approve: true });
    const code = new URL(approved.body.data.redirectTo).searchParams.get('code')!;
    // Act
    const answer = await tokenRequest(api, {
      grant_type: 'authorization_code',
      code,
      code_verifier: provider.verifier,
      redirect_uri: redirectUrl,
      client_id: provider.information!.client_id,
      resource: 'https://attacker.example/mcp',
    });
    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.error).toBe('invalid_target');
  });

  it('refuses an oversized registration and bad redirect URIs as RFC 7591 errors', async () => {
    // Act
    const register = (body: unknown) => api.request('POST', '/oauth/register', { body });
    const oversized = await register({ ...agentMetadata(), software_statement: 'x'.repeat(20_000) });
    const tooMany = await register(agentMetadata({ redirect_uris: Array.from({ length: 11 }, (_, i) => `https://app.example/cb${i}`) }));
    const plainHttp = await register(agentMetadata({ redirect_uris: ['http://app.example/cb'] }));
    const script = await register(agentMetadata({ redirect_uris: ['javascript:alert(1)'] }));
    const longName = await register(agentMetadata({ client_name: 'n'.repeat(101) }));
    // Assess
    expect(oversized.status).toBe(400);
    expect(oversized.body.error).toBe('invalid_client_metadata');
    for (const answer of [tooMany, plainHttp, script]) {
      expect(answer.status).toBe(400);
      expect(answer.body.error).toBe('invalid_redirect_uri');
      expect(answer.body).not.toHaveProperty('client_id');
    }
    expect(longName.body.error).toBe('invalid_client_metadata');
  });

  it('keeps another user away from a request someone decided, and refuses a decided request twice', async () => {
    // Prepare
    const { requestId } = await startAuthorization(api);
    await consent(api, owner, { requestId, approve: true });
    // Act
    const [view, decide, again] = await Promise.all([
      api.as(other.apiKey).get(`/api/sdk/v1/oauth/requests/${requestId}`),
      consent(api, other, { requestId, approve: true }),
      consent(api, owner, { requestId, approve: true }),
    ]);
    // Assess
    expect(view.status).toBe(404);
    expect(decide.status).toBe(404);
    expect(decide.body.error.code).toBe('NOT_FOUND');
    expect(again.status).toBe(409);
  });

  it('answers malformed token requests with RFC 6749 errors', async () => {
    // Act
    const noClient = await tokenRequest(api, { grant_type: 'authorization_code', code: 'x' });
    const badGrant = await tokenRequest(api, { grant_type: 'password', client_id: 'cli_nobody' });
    const garbageCode = await (async () => {
      const { provider } = await startAuthorization(api);
      return tokenRequest(api, {
        grant_type: 'authorization_code',
        code: 'oar_x.y',
        code_verifier: 'v'.repeat(43),
        redirect_uri: redirectUrl,
        client_id: provider.information!.client_id,
      });
    })();
    // Assess
    expect(noClient.status).toBe(401);
    expect(noClient.body.error).toBe('invalid_client');
    expect(badGrant.status).toBe(401);
    expect(garbageCode.status).toBe(400);
    expect(garbageCode.body.error).toBe('invalid_grant');
  });
});
