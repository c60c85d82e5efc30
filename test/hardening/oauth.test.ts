// Attacks on OAuth for MCP clients: stolen or replayed tokens and codes, scope escalation at consent, open redirects,
// registration floods and hostile form fields. Each must end in an OAuth error or the envelope, never a 500, with
// nothing issued.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printAttackSummary } from '../support/attack-summary.js';
import {
  MemoryOAuthProvider,
  agentMetadata,
  connectAgent,
  consent,
  followAuthorization,
  identityAt,
  redirectUrl,
  startAuthorization,
  tokenRequest,
} from '../support/oauth.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

printAttackSummary('oauth');

let api: TestApi;
let victim: TestUser;
let attacker: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  [victim, attacker] = await Promise.all([api.givenUser(), api.givenUser()]);
});
afterAll(() => api.stop());

const grantCount = async (user: TestUser) =>
  ((await api.as(user.apiKey).get('/api/sdk/v1/keys?limit=100')).body.data.keys as Array<{ kind: string }>).filter((key) => key.kind === 'oauth').length;

describe('oauth attacks', () => {
  it('a refresh token presented as a bearer token authenticates nothing', async () => {
    // Prepare
    const { tokens } = await connectAgent(api, victim);
    // Act
    const [atMcp, atRest] = await Promise.all([
      identityAt(api, tokens.refresh_token!),
      api.request('GET', '/api/sdk/v1/me', { headers: { authorization: `Bearer ${tokens.refresh_token}` } }),
    ]);
    // Assess
    expect(atMcp).toEqual({ reason: 'unknown' });
    expect(atRest.status).toBe(401);
  });

  it('an access token does not open the REST API, so an agent cannot mint keys or consent to other clients', async () => {
    // Prepare
    const { tokens } = await connectAgent(api, victim);
    const { requestId } = await startAuthorization(api);
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    // Act
    const [minted, consented] = await Promise.all([
      api.request('POST', '/api/sdk/v1/keys', { body: { name: 'stolen' }, headers: bearer }),
      api.request('POST', '/api/sdk/v1/oauth/consent', { body: { requestId, approve: true }, headers: bearer }),
    ]);
    // Assess
    expect(minted.status).toBe(401);
    expect(consented.status).toBe(401);
    expect((await api.as(victim.apiKey).get(`/api/sdk/v1/oauth/requests/${requestId}`)).body.data.status).toBe('pending');
  });

  it('a refresh token stolen by another client buys nothing and leaves the victim connected', async () => {
    // Prepare
    const { tokens } = await connectAgent(api, victim);
    const thief = new MemoryOAuthProvider(agentMetadata({ client_name: 'Thief' }));
    await startAuthorization(api, thief);
    // Act
    const stolen = await tokenRequest(api, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token!, client_id: thief.information!.client_id });
    // Assess
    expect(stolen.status).toBe(400);
    expect(stolen.body.error).toBe('invalid_grant');
    expect(stolen.body).not.toHaveProperty('access_token');
    expect(await identityAt(api, tokens.access_token)).toMatchObject({ userId: victim.userId });
  });

  it('an authorization code intercepted by another client cannot be redeemed, even with the verifier', async () => {
    // Prepare
    const { provider, requestId } = await startAuthorization(api);
    const code = new URL((await consent(api, victim, { requestId, approve: true })).body.data.redirectTo).searchParams.get('code')!;
    const thief = new MemoryOAuthProvider(agentMetadata({ client_name: 'Thief' }));
    await startAuthorization(api, thief);
    const before = await grantCount(victim);
    // Act
    const redeemed = await tokenRequest(api, {
      grant_type: 'authorization_code',
      code,
      code_verifier: provider.verifier,
      redirect_uri: redirectUrl,
      client_id: thief.information!.client_id,
    });
    // Assess
    expect(redeemed.status).toBe(400);
    expect(redeemed.body.error).toBe('invalid_grant');
    expect(await grantCount(victim)).toBe(before);
  });

  it('a key without a scope cannot consent to a grant holding it', async () => {
    // Prepare
    const narrow = (await api.as(victim.apiKey).post('/api/sdk/v1/keys', { name: 'narrow', scopes: ['keys:manage', 'scripts:read'] })).body.data
      .apiKey as string;
    const { requestId } = await startAuthorization(api);
    const before = await grantCount(victim);
    // Act
    const escalated = await api.as(narrow).post('/api/sdk/v1/oauth/consent', { requestId, approve: true, scopes: ['resources:call'] });
    // Assess
    expect(escalated.status).toBe(403);
    expect(escalated.body.error.code).toBe('FORBIDDEN');
    expect(await grantCount(victim)).toBe(before);
    expect((await api.as(victim.apiKey).get(`/api/sdk/v1/oauth/requests/${requestId}`)).body.data.status).toBe('pending');
  });

  it('another user can neither read nor take over a request the victim decided', async () => {
    // Prepare
    const { requestId } = await startAuthorization(api);
    await consent(api, victim, { requestId, approve: true });
    const before = await grantCount(attacker);
    // Act
    const [read, taken] = await Promise.all([
      api.as(attacker.apiKey).get(`/api/sdk/v1/oauth/requests/${requestId}`),
      consent(api, attacker, { requestId, approve: true }),
    ]);
    // Assess
    expect(read.status).toBe(404);
    expect(taken.status).toBe(404);
    expect(taken.body.data).toBeUndefined();
    expect(await grantCount(attacker)).toBe(before);
  });

  it('redirects only to an exact registered redirect URI', async () => {
    // Prepare
    const { provider } = await startAuthorization(api);
    const near = ['http://127.0.0.1:7777/callback/../evil', 'http://127.0.0.1:7777/callback?next=https://attacker.example', 'http://127.0.0.1:7777/callbackx'];
    // Act
    const answers = await Promise.all(
      near.map((uri) => {
        const url = new URL(provider.authorizationUrl!);
        url.searchParams.set('redirect_uri', uri);
        return followAuthorization(url);
      }),
    );
    // Assess
    for (const answer of answers) {
      expect(answer.status).toBe(400);
      expect(answer.location).toBeNull();
    }
  });

  it('a confidential client with a wrong secret gets invalid_client and no token', async () => {
    // Prepare
    const provider = new MemoryOAuthProvider(agentMetadata({ token_endpoint_auth_method: 'client_secret_post' }));
    const { tokens } = await connectAgent(api, victim, provider);
    // Act
    const guessed = await tokenRequest(api, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: provider.information!.client_id,
      client_secret: 'ocs_guess',
    });
    const withoutSecret = await tokenRequest(api, {
      grant_type: 'refresh_token',
      refresh_token: tokens.refresh_token!,
      client_id: provider.information!.client_id,
    });
    // Assess
    expect(guessed.status).toBe(401);
    expect(guessed.body.error).toBe('invalid_client');
    expect(withoutSecret.status).toBe(401);
    expect(await identityAt(api, tokens.access_token)).toMatchObject({ userId: victim.userId });
  });

  it('hostile form fields get an OAuth error, never a 500', async () => {
    // Act
    const answers = await Promise.all([
      tokenRequest(api, { __proto__: 'x', constructor: 'y', grant_type: 'authorization_code', client_id: 'toString' } as Record<string, string>),
      tokenRequest(api, { grant_type: 'refresh_token', client_id: 'c'.repeat(5000), refresh_token: 'r' }),
      fetch(`${api.baseUrl}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', authorization: 'Basic !!!' },
        body: 'grant_type=refresh_token',
      }),
    ]);
    // Assess
    expect(answers[0]!.status).toBe(401);
    expect(answers[1]!.status).toBe(400);
    expect(answers[2]!.status).toBe(401);
  });

  it('a registration flood from one address is refused past the limit', async () => {
    // Act
    const answers = await Promise.all(
      Array.from({ length: 24 }, () => api.request('POST', '/oauth/register', { body: agentMetadata({ client_name: 'Flood' }) })),
    );
    // Assess
    const refused = answers.filter((answer) => answer.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]!.body.error).toBe('too_many_requests');
    expect(answers.every((answer) => answer.status === 201 || answer.status === 429)).toBe(true);
  });
});
