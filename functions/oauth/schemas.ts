import * as z from 'zod';
import { IsoDate, OpaqueId } from '#platform/schemas.js';
import { maxRedirectUriLength } from './redirect-uris.js';

/** Form or query parameters as they came: the service checks them and answers in OAuth's words. */
export const OAuthParameters = z.record(z.string(), z.string());

/** A registration's JSON object as it came: the service checks it against ClientMetadata and answers as RFC 7591 says. */
export const OAuthClientBody = z.record(z.string(), z.unknown());

export const authMethods = ['none', 'client_secret_post', 'client_secret_basic'] as const;
export type AuthMethod = (typeof authMethods)[number];

/** RFC 7591 §2: what a client may say about itself; other fields are ignored. Bounded so a registration stays small. */
export const ClientMetadata = z.object({
  redirect_uris: z.array(z.string().max(maxRedirectUriLength)).min(1).max(10),
  client_name: z
    .string()
    .min(1)
    .max(100)
    .regex(/^[^\p{Cc}]*$/u, 'no control characters')
    .optional(),
  client_uri: z
    .url({ protocol: /^https$/ })
    .max(maxRedirectUriLength)
    .optional(),
  token_endpoint_auth_method: z.enum(authMethods).optional(),
  grant_types: z
    .array(z.enum(['authorization_code', 'refresh_token']))
    .min(1)
    .max(2)
    .optional(),
  response_types: z.array(z.literal('code')).min(1).max(1).optional(),
  scope: z.string().max(2000).optional(),
});

export interface StoredClient {
  clientId: string;
  clientName: string;
  redirectUris: string[];
  authMethod: AuthMethod;
  grantTypes: string[];
  clientUri?: string;
  scope?: string;
  /** SHA-256 of a confidential client's secret. */
  secretHash?: string;
  createdAt: string;
  /** Epoch seconds: a registration that never obtains a grant goes after a day. */
  expiresAt?: number;
}

export type AuthorizationStatus = 'pending' | 'approved' | 'denied' | 'exchanged';

export interface StoredAuthorization {
  authorizationId: string;
  clientId: string;
  redirectUri: string;
  scopes: string[];
  codeChallenge: string;
  state?: string;
  resource: string;
  status: AuthorizationStatus;
  createdAt: string;
  /** Until when the user may decide (ms). */
  decideBy: number;
  /** Epoch seconds, the table's TTL. */
  expiresAt: number;
  userId?: string;
  grantedScopes?: string[];
  codeHash?: string;
  /** Until when the code may be exchanged (ms). */
  codeExpiresAt?: number;
  grantId?: string;
}

export const RequestIdInput = z.object({ requestId: OpaqueId });

export const ConsentInput = z.strictObject({
  requestId: OpaqueId,
  approve: z.boolean(),
  /** The scopes granted: some of those asked; all of them when absent. */
  scopes: z.array(z.string().max(100)).max(30).optional(),
});

export const ConsentOutcome = z.object({ redirectTo: z.string() });

export const AuthorizationRequestView = z.object({
  requestId: z.string(),
  clientId: z.string(),
  clientName: z.string(),
  clientUri: z.string().nullable(),
  redirectUri: z.string(),
  scopes: z.array(z.string()),
  resource: z.string(),
  status: z.enum(['pending', 'approved', 'denied', 'exchanged']),
  createdAt: IsoDate,
});
export type AuthorizationRequestView = z.infer<typeof AuthorizationRequestView>;
