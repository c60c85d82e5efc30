// OAuth 2.1 for MCP clients: dynamic registration, the authorization code with PKCE (S256 only), the user's consent and
// the token endpoint. The grants and their tokens belong to the accounts area (the `Grants` port); this area keeps the
// clients and the authorization requests.
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Clock } from '#platform/clock.js';
import type { Caller } from '#platform/caller.js';
import { ConflictError, ForbiddenError, NotFoundError, ValidationError } from '#platform/errors.js';
import { newId, newSecret, sha256Hex } from '#platform/ids.js';
import { scopes as platformScopes } from '#platform/scopes.js';
import { OAuthError, invalidClient, invalidGrant, invalidRequest } from './errors.js';
import { mcpResource, oauthScopes } from './metadata.js';
import type { Grants, IssuedTokens, RegistrationLimiter } from './ports.js';
import { redirectUriProblem } from './redirect-uris.js';
import { type AuthorizationRequestView, ClientMetadata, type StoredAuthorization, type StoredClient } from './schemas.js';
import type { OAuthStore } from './store.js';

/** How long the user has to consent, and the code to be exchanged once they did (OAuth 2.1 §4.1.2: short). */
const decideWithinMs = 10 * 60_000;
const codeLifetimeMs = 2 * 60_000;
/** An authorization is kept this long after its decision, so a replayed code still finds (and revokes) its grant. */
const keepAuthorizationSeconds = 24 * 3600;
const unclaimedClientSeconds = 24 * 3600;
const maxRegistrationBytes = 16 * 1024;
const maxActiveGrants = 100;
const maxParameterLength = 2000;
/** Registrations one address may make a minute: an MCP client registers once per install. */
export const registrationsPerMinute = 20;

/** RFC 7636 §4.1: 43 to 128 unreserved characters; a S256 challenge is 43 base64url ones. */
const verifierShape = /^[A-Za-z0-9._~-]{43,128}$/;
const challengeShape = /^[A-Za-z0-9_-]{43}$/;

const s256 = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

const sameText = (a: string, b: string) => a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** A scope parameter as distinct scopes, or the problem with it. */
function parseScopes(scope: string | undefined): string[] | { unknown: string[] } {
  if (scope === undefined || scope.trim() === '') return [...oauthScopes];
  const asked = [...new Set(scope.trim().split(/ +/))];
  const unknown = asked.filter((name) => !oauthScopes.includes(name));
  return unknown.length ? { unknown } : asked;
}

/** The redirect back to the client: query parameters added to its registered URI, which may carry its own. */
function redirectWith(redirectUri: string, parameters: Record<string, string | undefined>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(parameters)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

export interface TokenAnswer {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

const tokenAnswer = (tokens: IssuedTokens): TokenAnswer => ({
  access_token: tokens.accessToken,
  token_type: 'Bearer',
  expires_in: tokens.expiresIn,
  refresh_token: tokens.refreshToken,
  scope: tokens.scopes.join(' '),
});

/** Client credentials from an `Authorization: Basic` header (RFC 6749 §2.3.1: each part form-encoded). */
function basicCredentials(authorization: string | undefined): { clientId: string; secret: string } | undefined {
  const match = /^basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization ?? '');
  if (!match) return undefined;
  const decoded = Buffer.from(match[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  try {
    return {
      clientId: decodeURIComponent(decoded.slice(0, colon).replace(/\+/g, ' ')),
      secret: decodeURIComponent(decoded.slice(colon + 1).replace(/\+/g, ' ')),
    };
  } catch {
    return undefined;
  }
}

export function createOAuthService(deps: { store: OAuthStore; grants: Grants; limiter: RegistrationLimiter; clock: Clock; consoleUrl: () => string }) {
  const { store, grants, limiter, clock } = deps;

  /** The client a token request authenticates as (RFC 6749 §2.3): by its secret if it has one, by its id otherwise. */
  async function authenticateClient(parameters: Record<string, string>, authorization: string | undefined): Promise<StoredClient> {
    const basic = basicCredentials(authorization);
    const clientId = basic?.clientId ?? parameters.client_id;
    const secret = basic?.secret ?? parameters.client_secret;
    if (!clientId) throw invalidClient('client_id is required');
    if (basic && parameters.client_id !== undefined && parameters.client_id !== basic.clientId)
      throw invalidClient('client_id differs from the Basic credentials');
    const client = clientId.length <= 200 ? await store.getClient(clientId) : undefined;
    if (!client || (client.expiresAt !== undefined && client.expiresAt * 1000 <= clock.now())) throw invalidClient('unknown client');
    if (client.secretHash === undefined) {
      if (secret !== undefined) throw invalidClient('this client is public: it authenticates with no secret');
      return client;
    }
    if (secret === undefined || !sameText(sha256Hex(secret), client.secretHash)) throw invalidClient('wrong or missing client secret');
    return client;
  }

  async function exchangeCode(client: StoredClient, parameters: Record<string, string>): Promise<TokenAnswer> {
    const { code, code_verifier: verifier, redirect_uri: redirectUri, resource } = parameters;
    if (!code) throw invalidRequest('code is required');
    if (!verifier) throw invalidRequest('code_verifier is required (PKCE)');
    if (!verifierShape.test(verifier)) throw invalidGrant('code_verifier must be 43 to 128 unreserved characters');
    const authorizationId = code.split('.', 1)[0]!;
    const authorization = authorizationId.length <= 200 ? await store.getAuthorization(authorizationId) : undefined;
    const codeHash = sha256Hex(code);
    if (!authorization?.codeHash || !sameText(codeHash, authorization.codeHash)) throw invalidGrant('unknown authorization code');
    if (authorization.clientId !== client.clientId) throw invalidGrant('the code was issued to another client');
    if (authorization.status === 'exchanged') {
      // A code is spent once: a second exchange means it leaked, so what the first bought is revoked (OAuth 2.1 §4.1.3).
      if (authorization.grantId) await grants.revokeGrant(authorization.grantId);
      throw invalidGrant('the authorization code was already used; the grant it bought is revoked');
    }
    if (authorization.status !== 'approved' || !authorization.userId || !authorization.grantedScopes) throw invalidGrant('the authorization was not approved');
    if ((authorization.codeExpiresAt ?? 0) <= clock.now()) throw invalidGrant('the authorization code has expired');
    if (redirectUri !== authorization.redirectUri) throw invalidGrant('redirect_uri differs from the authorization request');
    if (!sameText(s256(verifier), authorization.codeChallenge)) throw invalidGrant('code_verifier does not match the code challenge');
    if (resource !== undefined && resource !== authorization.resource)
      throw new OAuthError('invalid_target', 'resource differs from the authorization request');
    if (!(await store.claimCode(authorization.authorizationId, codeHash))) throw invalidGrant('the authorization code was already used');
    const tokens = await grants.issueGrant({
      userId: authorization.userId,
      clientId: client.clientId,
      clientName: client.clientName,
      scopes: authorization.grantedScopes,
      resource: authorization.resource,
    });
    await Promise.all([store.recordGrant(authorization.authorizationId, tokens.grantId), client.expiresAt !== undefined && store.keepClient(client.clientId)]);
    return tokenAnswer(tokens);
  }

  async function refresh(client: StoredClient, parameters: Record<string, string>): Promise<TokenAnswer> {
    const { refresh_token: refreshToken, resource, scope } = parameters;
    if (!refreshToken) throw invalidRequest('refresh_token is required');
    if (scope !== undefined) throw new OAuthError('invalid_scope', 'a refresh keeps the scopes granted: omit scope');
    const outcome = await grants.refreshGrant(refreshToken, client.clientId, resource);
    if ('refused' in outcome) {
      if (outcome.refused === 'wrong_resource') throw new OAuthError('invalid_target', 'resource differs from the grant’s');
      throw invalidGrant(
        outcome.refused === 'reused'
          ? 'the refresh token was already used; the grant is revoked'
          : `the refresh token is ${outcome.refused === 'wrong_client' ? 'not this client’s' : outcome.refused === 'unknown' ? 'unknown' : outcome.refused}`,
      );
    }
    return tokenAnswer(outcome);
  }

  /** The request a consent decides: NOT_FOUND for a request unknown or decided by someone else, CONFLICT once decided or expired. */
  async function pendingRequest(caller: Caller, requestId: string): Promise<StoredAuthorization> {
    const authorization = await store.getAuthorization(requestId);
    if (!authorization || (authorization.userId && authorization.userId !== caller.userId))
      throw new NotFoundError('requestId', requestId, 'authorization request');
    if (authorization.status !== 'pending') throw new ConflictError(`authorization request ${requestId} is already ${authorization.status}`);
    if (authorization.decideBy <= clock.now()) throw new ConflictError(`authorization request ${requestId} has expired; start again from the client`);
    return authorization;
  }

  return {
    /** RFC 7591: registers a client; `source` (the caller's address) is rate-limited. */
    async register(rawBody: string, body: Record<string, unknown>, source: string) {
      if (!(await limiter.allow(source))) throw new OAuthError('too_many_requests', 'too many registrations from this address; try again in a minute', 429);
      if (Buffer.byteLength(rawBody) > maxRegistrationBytes)
        throw new OAuthError('invalid_client_metadata', `the registration exceeds ${maxRegistrationBytes} bytes`);
      const parsed = ClientMetadata.safeParse(body);
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const field = issue.path.join('.') || 'body';
        throw new OAuthError(field.startsWith('redirect_uris') ? 'invalid_redirect_uri' : 'invalid_client_metadata', `${field}: ${issue.message}`);
      }
      const metadata = parsed.data;
      for (const uri of metadata.redirect_uris) {
        const problem = redirectUriProblem(uri);
        if (problem) throw new OAuthError('invalid_redirect_uri', `redirect URI ${JSON.stringify(uri.slice(0, 200))}: ${problem}`);
      }
      const authMethod = metadata.token_endpoint_auth_method ?? 'none';
      const secret = authMethod === 'none' ? undefined : newSecret('ocs');
      const now = clock.now();
      const client: StoredClient = {
        clientId: newId('cli'),
        clientName: metadata.client_name ?? 'Unnamed client',
        redirectUris: [...new Set(metadata.redirect_uris)],
        authMethod,
        grantTypes: metadata.grant_types ?? ['authorization_code', 'refresh_token'],
        ...(metadata.client_uri && { clientUri: metadata.client_uri }),
        ...(metadata.scope && { scope: metadata.scope }),
        ...(secret && { secretHash: sha256Hex(secret) }),
        createdAt: new Date(now).toISOString(),
        expiresAt: Math.floor(now / 1000) + unclaimedClientSeconds,
      };
      await store.putClient(client);
      return {
        client_id: client.clientId,
        client_id_issued_at: Math.floor(now / 1000),
        ...(secret && { client_secret: secret, client_secret_expires_at: 0 }),
        client_name: client.clientName,
        redirect_uris: client.redirectUris,
        token_endpoint_auth_method: client.authMethod,
        grant_types: client.grantTypes,
        response_types: ['code'],
        ...(client.clientUri && { client_uri: client.clientUri }),
        ...(client.scope && { scope: client.scope }),
      };
    },

    /**
     * The authorization endpoint: where to send the browser. Until the client and its redirect URI are known, a problem
     * is VALIDATION_ERROR here (never a redirect to an unregistered URI); after, the client hears it at its redirect URI.
     */
    async authorize(parameters: Record<string, string>, origin: string): Promise<string> {
      for (const [name, value] of Object.entries(parameters))
        if (value.length > maxParameterLength) throw new ValidationError(name, null, `${name} is longer than ${maxParameterLength} characters`);
      const clientId = parameters.client_id;
      if (!clientId) throw new ValidationError('client_id', null, 'client_id is required');
      const client = await store.getClient(clientId);
      if (!client || (client.expiresAt !== undefined && client.expiresAt * 1000 <= clock.now())) throw new NotFoundError('client_id', clientId, 'OAuth client');
      const redirectUri = parameters.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
      if (!redirectUri) throw new ValidationError('redirect_uri', null, 'redirect_uri is required: this client registered several');
      if (!client.redirectUris.includes(redirectUri)) throw new ValidationError('redirect_uri', redirectUri, 'redirect_uri is not one this client registered');
      const { state } = parameters;
      const refuse = (error: string, description: string) => redirectWith(redirectUri, { error, error_description: description, state, iss: origin });
      if (parameters.response_type !== 'code') return refuse('unsupported_response_type', 'response_type must be code');
      if (!client.grantTypes.includes('authorization_code')) return refuse('unauthorized_client', 'this client did not register the authorization_code grant');
      if (!parameters.code_challenge) return refuse('invalid_request', 'code_challenge is required (PKCE)');
      if (parameters.code_challenge_method !== 'S256') return refuse('invalid_request', 'code_challenge_method must be S256');
      if (!challengeShape.test(parameters.code_challenge)) return refuse('invalid_request', 'code_challenge must be a base64url SHA-256 (43 characters)');
      const resource = parameters.resource ?? mcpResource(origin);
      if (resource !== mcpResource(origin)) return refuse('invalid_target', `resource must be ${mcpResource(origin)}`);
      const asked = parseScopes(parameters.scope);
      if (!Array.isArray(asked)) return refuse('invalid_scope', `unknown scopes: ${asked.unknown.join(' ').slice(0, 200)}`);
      const now = clock.now();
      const authorizationId = newId('oar');
      await store.putAuthorization({
        authorizationId,
        clientId,
        redirectUri,
        scopes: asked,
        codeChallenge: parameters.code_challenge,
        ...(state !== undefined && { state }),
        resource,
        status: 'pending',
        createdAt: new Date(now).toISOString(),
        decideBy: now + decideWithinMs,
        expiresAt: Math.floor((now + decideWithinMs) / 1000) + keepAuthorizationSeconds,
      });
      return `${deps.consoleUrl()}/#/authorize?requestId=${encodeURIComponent(authorizationId)}`;
    },

    /** What the consent page shows: who asks, where the answer goes, and for what. */
    async describeRequest(caller: Caller, requestId: string): Promise<AuthorizationRequestView> {
      const authorization = await store.getAuthorization(requestId);
      if (!authorization || (authorization.userId && authorization.userId !== caller.userId))
        throw new NotFoundError('requestId', requestId, 'authorization request');
      const client = await store.getClient(authorization.clientId);
      if (!client) throw new NotFoundError('requestId', requestId, 'authorization request');
      return {
        requestId,
        clientId: client.clientId,
        clientName: client.clientName,
        clientUri: client.clientUri ?? null,
        redirectUri: authorization.redirectUri,
        scopes: authorization.scopes,
        resource: authorization.resource,
        status: authorization.status,
        createdAt: authorization.createdAt,
      };
    },

    /** The signed-in user's answer: where the browser goes next, with a one-time code or `access_denied`. */
    async consent(caller: Caller, input: { requestId: string; approve: boolean; scopes?: string[] }, origin: string): Promise<{ redirectTo: string }> {
      const authorization = await pendingRequest(caller, input.requestId);
      const back = (parameters: Record<string, string | undefined>) => ({
        redirectTo: redirectWith(authorization.redirectUri, { ...parameters, state: authorization.state, iss: origin }),
      });
      if (!input.approve) {
        if (!(await store.decide(authorization.authorizationId, { status: 'denied', userId: caller.userId })))
          throw new ConflictError(`authorization request ${input.requestId} was decided meanwhile`);
        return back({ error: 'access_denied', error_description: 'the user denied the request' });
      }
      const granted = [...new Set(input.scopes ?? authorization.scopes)];
      const notAsked = granted.filter((scope) => !authorization.scopes.includes(scope));
      if (notAsked.length) throw new ValidationError('scopes', notAsked, `scopes the client did not ask for: ${notAsked.join(', ')}`);
      if (granted.length === 0) throw new ValidationError('scopes', granted, 'grant at least one scope, or deny');
      const beyond = caller.scopes.includes(platformScopes.all) ? [] : granted.filter((scope) => !caller.scopes.includes(scope));
      if (beyond.length) throw new ForbiddenError(`a grant cannot hold scopes your key does not: ${beyond.join(', ')}`, { scopes: beyond });
      if ((await grants.activeGrantCount(caller.userId)) >= maxActiveGrants)
        throw new ConflictError(`at most ${maxActiveGrants} active OAuth grants per account; revoke one first`);
      const code = `${authorization.authorizationId}.${newSecret('oac')}`;
      const decided = await store.decide(authorization.authorizationId, {
        status: 'approved',
        userId: caller.userId,
        grantedScopes: granted,
        codeHash: sha256Hex(code),
        codeExpiresAt: clock.now() + codeLifetimeMs,
      });
      if (!decided) throw new ConflictError(`authorization request ${input.requestId} was decided meanwhile`);
      return back({ code });
    },

    /** The token endpoint (RFC 6749 §3.2): form parameters, client authentication, one of the two grant types. */
    async token(parameters: Record<string, string>, authorization: string | undefined): Promise<TokenAnswer> {
      for (const [name, value] of Object.entries(parameters))
        if (value.length > maxParameterLength) throw invalidRequest(`${name} is longer than ${maxParameterLength} characters`);
      const client = await authenticateClient(parameters, authorization);
      const grantType = parameters.grant_type;
      if (grantType !== 'authorization_code' && grantType !== 'refresh_token')
        throw new OAuthError('unsupported_grant_type', 'grant_type must be authorization_code or refresh_token');
      if (!client.grantTypes.includes(grantType)) throw new OAuthError('unauthorized_client', `this client did not register the ${grantType} grant`);
      return grantType === 'authorization_code' ? exchangeCode(client, parameters) : refresh(client, parameters);
    },
  };
}

export type OAuthService = ReturnType<typeof createOAuthService>;
