import { createHash } from 'node:crypto';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { type Upstream, givenInstalled, givenPublishedResource, json, startUpstream } from '../support/resources.js';

let api: TestApi;
/** One local server plays the OAuth2 provider (/token) and the API behind it (/v1/...). */
let provider: Upstream;
let owner: TestUser;
let user: TestUser;
const validTokens = new Set<string>();
const issuedCodes = new Map<string, { challenge: string; redirectUri: string }>();
let refreshAnswer: { status: number; body: Record<string, unknown> } | undefined;
let tokenCounter = 0;

const form = (body: string) => Object.fromEntries(new URLSearchParams(body));

beforeAll(async () => {
  [api, provider] = await Promise.all([startTestPlatform(), startUpstream()]);
  [owner, user] = await Promise.all([api.givenUser(), api.givenUser()]);
});
afterAll(async () => {
  await provider.close();
  await api.stop();
});
beforeEach(() => {
  refreshAnswer = undefined;
  provider.respond((request, response) => {
    if (request.url === '/token') {
      const grant = form(request.body);
      if (grant.client_id !== 'client-1' || grant.client_secret !== 'shh') return json(response, 401, { error: 'invalid_client' });
      if (grant.grant_type === 'authorization_code') {
        const issued = issuedCodes.get(grant.code!);
        const challenge = createHash('sha256')
          .update(grant.code_verifier ?? '')
          .digest('base64url');
        if (!issued || issued.challenge !== challenge || issued.redirectUri !== grant.redirect_uri) return json(response, 400, { error: 'invalid_grant' });
      } else if (refreshAnswer) {
        return json(response, refreshAnswer.status, refreshAnswer.body);
      } else if (!String(grant.refresh_token).startsWith('rt-')) {
        return json(response, 400, { error: 'invalid_grant' });
      }
      const accessToken = `at-${++tokenCounter}`;
      validTokens.add(accessToken);
      return json(response, 200, { access_token: accessToken, refresh_token: `rt-${tokenCounter}`, expires_in: 3600, token_type: 'Bearer' });
    }
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1] ?? '';
    if (!validTokens.has(token)) return json(response, 401, { error: 'invalid_token' });
    json(response, 200, { ok: true, token });
  });
});

const base = '/api/sdk/v1/resources';

async function givenOAuthResource() {
  const resourceId = await givenPublishedResource(
    api,
    owner,
    {},
    {
      baseUrl: `${provider.baseUrl}/v1`,
      authentication: 'oauth2',
      authConfig: { authUrl: `${provider.baseUrl}/authorize`, tokenUrl: `${provider.baseUrl}/token`, scopes: ['read', 'write'] },
    },
  );
  await givenInstalled(api, user, resourceId);
  return resourceId;
}

/** What the provider does when the user approves: a code bound to the PKCE challenge, back to redirect_uri. */
function approve(authorizationUrl: string): string {
  const url = new URL(authorizationUrl);
  const code = `code-${Math.random().toString(36).slice(2)}`;
  issuedCodes.set(code, { challenge: url.searchParams.get('code_challenge')!, redirectUri: url.searchParams.get('redirect_uri')! });
  const callback = new URL(url.searchParams.get('redirect_uri')!);
  callback.searchParams.set('code', code);
  callback.searchParams.set('state', url.searchParams.get('state')!);
  return `${callback.pathname}${callback.search}`;
}

const authenticate = (resourceId: string, credentials: Record<string, unknown>) =>
  api.as(user.apiKey).post(`${base}/${resourceId}/authenticate`, { type: 'oauth2', credentials });
const call = (resourceId: string) => api.as(user.apiKey).post(`${base}/${resourceId}/call`, { method: 'getForecast', params: { city: 'Oslo' } });
const tokenRequests = () => provider.received.filter((request) => request.url === '/token').map((request) => form(request.body));

describe('resources: OAuth2 authorization-code flow', () => {
  it('runs authorize -> provider -> callback -> tokens, then calls with the access token', async () => {
    // Prepare
    const resourceId = await givenOAuthResource();
    // Act
    const started = await authenticate(resourceId, { clientId: 'client-1', clientSecret: 'shh' });
    const blocked = await call(resourceId);
    const callback = await api.request('GET', approve(started.body.data.authorizationUrl));
    const answered = await call(resourceId);
    // Assess
    expect(started.body.data).toMatchObject({ resourceId, type: 'oauth2', isAuthenticated: false, state: expect.any(String) });
    const authorizationUrl = new URL(started.body.data.authorizationUrl);
    expect(`${authorizationUrl.origin}${authorizationUrl.pathname}`).toBe(`${provider.baseUrl}/authorize`);
    expect(Object.fromEntries(authorizationUrl.searchParams)).toMatchObject({
      response_type: 'code',
      client_id: 'client-1',
      scope: 'read write',
      state: started.body.data.state,
      code_challenge_method: 'S256',
      redirect_uri: `${api.baseUrl}/api/sdk/v1/resources/oauth/callback`,
    });
    expect(blocked.status).toBe(409);
    expect(callback.status).toBe(200);
    expect(callback.body.data).toMatchObject({ resourceId, isAuthenticated: true, expiresAt: expect.any(String) });
    expect(answered.body.data).toMatchObject({ status: 200, success: true, data: { ok: true, token: expect.stringMatching(/^at-/) } });
  });

  it('refuses a used, unknown or refused state with VALIDATION_ERROR', async () => {
    // Prepare
    const resourceId = await givenOAuthResource();
    const started = await authenticate(resourceId, { clientId: 'client-1', clientSecret: 'shh' });
    const callbackPath = approve(started.body.data.authorizationUrl);
    await api.request('GET', callbackPath);
    // Act
    const reused = await api.request('GET', callbackPath);
    const unknown = await api.request('GET', `${base}/oauth/callback?state=nope&code=x`);
    const again = await api.as(user.apiKey).post(`${base}/${resourceId}/oauth/authorize`);
    const denied = await api.request('GET', `${base}/oauth/callback?state=${again.body.data.state}&error=access_denied`);
    // Assess
    expect(reused.status).toBe(400);
    expect(reused.body.error.details).toMatchObject({ field: 'state' });
    expect(unknown.status).toBe(400);
    expect(denied.status).toBe(400);
    expect(denied.body.error.details).toMatchObject({ field: 'error', value: 'access_denied' });
  });

  it('refuses to authorize before a client was given (409)', async () => {
    // Prepare
    const resourceId = await givenOAuthResource();
    // Act
    const refused = await api.as(user.apiKey).post(`${base}/${resourceId}/oauth/authorize`);
    // Assess
    expect(refused.status).toBe(409);
  });
});

describe('resources: OAuth2 refresh', () => {
  it('refreshes a token about to expire before calling', async () => {
    // Prepare
    const resourceId = await givenOAuthResource();
    validTokens.add('at-old');
    await authenticate(resourceId, {
      accessToken: 'at-old',
      refreshToken: 'rt-old',
      expiresAt: new Date(Date.now() + 20_000).toISOString(),
      clientId: 'client-1',
      clientSecret: 'shh',
    });
    const before = tokenRequests().length;
    // Act
    const answered = await call(resourceId);
    const second = await call(resourceId);
    // Assess
    expect(tokenRequests().slice(before)).toEqual([expect.objectContaining({ grant_type: 'refresh_token', refresh_token: 'rt-old' })]);
    expect(answered.body.data.data.token).not.toBe('at-old');
    expect(second.body.data.data.token).toBe(answered.body.data.data.token);
  });

  it('refreshes once more on a 401 and retries the call once', async () => {
    // Prepare
    const resourceId = await givenOAuthResource();
    await authenticate(resourceId, {
      accessToken: 'at-revoked',
      refreshToken: 'rt-revoked',
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
      clientId: 'client-1',
      clientSecret: 'shh',
    });
    const before = tokenRequests().length;
    // Act
    const answered = await call(resourceId);
    // Assess
    expect(answered.body.data).toMatchObject({ status: 200, success: true });
    expect(tokenRequests().length).toBe(before + 1);
  });

  it('answers 502 UPSTREAM_ERROR when the token endpoint refuses the refresh, without repeating its body', async () => {
    // Prepare
    const resourceId = await givenOAuthResource();
    await authenticate(resourceId, {
      accessToken: 'at-gone',
      refreshToken: 'rt-gone',
      expiresAt: new Date(Date.now() - 1000).toISOString(),
      clientId: 'client-1',
      clientSecret: 'shh',
    });
    refreshAnswer = { status: 400, body: { error: 'invalid_grant', error_description: 'leaky detail' } };
    // Act
    const failed = await call(resourceId);
    // Assess
    expect(failed.status).toBe(502);
    expect(failed.body.error).toMatchObject({ code: 'UPSTREAM_ERROR', details: { reason: 'oauth_token', status: 400, error: 'invalid_grant' } });
    expect(failed.text).not.toContain('leaky detail');
  });
});
