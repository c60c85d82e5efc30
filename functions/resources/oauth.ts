// OAuth2 authorization-code flow (RFC 6749 §4.1, with PKCE S256) and refresh, against the resource's authConfig.
// The client authenticates at the token endpoint with client_secret_post, the form most providers accept.
import { createHash, randomBytes } from 'node:crypto';
import { UpstreamError } from '#platform/errors.js';
import { outboundRequest } from '#platform/outbound.js';
import type { OAuth2Credentials } from './credentials.js';

/** Refresh this long before `expiresAt`, so a token never expires on its way to the upstream. */
const refreshSkewMs = 60_000;
const tokenTimeoutMs = 15_000;

export const newState = () => randomBytes(24).toString('base64url');
export const newCodeVerifier = () => randomBytes(32).toString('base64url');
const codeChallenge = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export function authorizationUrl(options: {
  authUrl: string;
  clientId: string;
  redirectUri: string;
  scopes?: string[];
  state: string;
  codeVerifier: string;
}): string {
  const url = new URL(options.authUrl);
  url.searchParams.set('response_type', 'code');
  url.searchParams.set('client_id', options.clientId);
  url.searchParams.set('redirect_uri', options.redirectUri);
  if (options.scopes?.length) url.searchParams.set('scope', options.scopes.join(' '));
  url.searchParams.set('state', options.state);
  url.searchParams.set('code_challenge', codeChallenge(options.codeVerifier));
  url.searchParams.set('code_challenge_method', 'S256');
  return url.toString();
}

export const needsRefresh = (credentials: OAuth2Credentials, nowMs: number) =>
  Boolean(credentials.refreshToken && credentials.expiresAt && Date.parse(credentials.expiresAt) - refreshSkewMs <= nowMs);

/** Token endpoints answer JSON, or form encoding when they ignore Accept (older GitHub-style servers). */
function parseTokenBody(text: string): Record<string, unknown> {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return Object.fromEntries(new URLSearchParams(text));
  }
}

async function requestTokens(tokenUrl: string, form: Record<string, string | undefined>, nowMs: number): Promise<Partial<OAuth2Credentials>> {
  const body = new URLSearchParams(Object.entries(form).filter((entry): entry is [string, string] => entry[1] !== undefined)).toString();
  const response = await outboundRequest({
    url: tokenUrl,
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' },
    body,
    timeoutMs: tokenTimeoutMs,
  });
  const parsed = parseTokenBody(response.body.toString('utf8'));
  if (response.status < 200 || response.status >= 300 || typeof parsed.access_token !== 'string') {
    // Only the standard error code goes into the message: a token endpoint's body is not ours to repeat.
    const code = typeof parsed.error === 'string' ? parsed.error.slice(0, 100) : undefined;
    throw new UpstreamError(`the OAuth2 token endpoint refused the ${form.grant_type} request (HTTP ${response.status}${code ? `, ${code}` : ''})`, {
      reason: 'oauth_token',
      status: response.status,
      ...(code && { error: code }),
    });
  }
  const expiresIn = Number(parsed.expires_in);
  return {
    accessToken: parsed.access_token,
    ...(typeof parsed.refresh_token === 'string' && { refreshToken: parsed.refresh_token }),
    ...(Number.isFinite(expiresIn) && expiresIn > 0 && { expiresAt: new Date(nowMs + expiresIn * 1000).toISOString() }),
  };
}

export async function exchangeCode(options: {
  tokenUrl: string;
  credentials: OAuth2Credentials;
  code: string;
  redirectUri: string;
  codeVerifier: string;
  nowMs: number;
}): Promise<OAuth2Credentials> {
  const tokens = await requestTokens(
    options.tokenUrl,
    {
      grant_type: 'authorization_code',
      code: options.code,
      redirect_uri: options.redirectUri,
      client_id: options.credentials.clientId,
      client_secret: options.credentials.clientSecret,
      code_verifier: options.codeVerifier,
    },
    options.nowMs,
  );
  const { refreshToken: _old, expiresAt: _oldExpiry, ...client } = options.credentials;
  return { ...client, ...tokens };
}

/** New tokens; the refresh token is kept when the server does not rotate it. */
export async function refreshTokens(tokenUrl: string, credentials: OAuth2Credentials, nowMs: number): Promise<OAuth2Credentials> {
  const tokens = await requestTokens(
    tokenUrl,
    { grant_type: 'refresh_token', refresh_token: credentials.refreshToken, client_id: credentials.clientId, client_secret: credentials.clientSecret },
    nowMs,
  );
  const { expiresAt: _old, ...kept } = credentials;
  return { ...kept, ...tokens };
}
