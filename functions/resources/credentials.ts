// Credentials per type, checked without ever echoing a secret, sealed by the
// CredentialVault, and injected into upstream requests as the design says.
import * as z from 'zod';
import { ConflictError, ValidationError } from '#platform/errors.js';
import type { CredentialVault } from '#platform/ports.js';
import { IsoDate } from '#platform/schemas.js';
import type { Endpoint, InstallationItem } from './records.js';
import type { CredentialType } from './schemas.js';

const Secret = z.string().min(1).max(8192);

const credentialSchemas = {
  api_key: z.strictObject({ apiKey: Secret }),
  bearer: z.strictObject({ token: Secret }),
  basic: z.strictObject({ username: z.string().min(1).max(1024), password: z.string().max(8192) }),
  oauth2: z
    .strictObject({
      clientId: Secret.optional(),
      clientSecret: Secret.optional(),
      accessToken: Secret.optional(),
      refreshToken: Secret.optional(),
      expiresAt: IsoDate.optional(),
    })
    .refine((value) => Boolean(value.accessToken) || Boolean(value.clientId && value.clientSecret), {
      message: 'give either clientId and clientSecret, or accessToken (with refreshToken and expiresAt to allow refresh)',
    }),
} as const;

export type StoredCredentials =
  | { type: 'api_key'; apiKey: string }
  | { type: 'bearer'; token: string }
  | { type: 'basic'; username: string; password: string }
  | { type: 'oauth2'; clientId?: string; clientSecret?: string; accessToken?: string; refreshToken?: string; expiresAt?: string };

export type OAuth2Credentials = Extract<StoredCredentials, { type: 'oauth2' }>;

/** The credentials of `type`, or VALIDATION_ERROR naming the field, with the value redacted. */
export function parseCredentials(type: CredentialType, raw: Record<string, unknown>): StoredCredentials {
  const result = credentialSchemas[type].safeParse(raw);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    const keys = issue.code === 'unrecognized_keys' ? issue.keys : [];
    const field = ['credentials', ...issue.path, ...keys.slice(0, 1)].join('.');
    const message = keys.length ? `unknown field ${field} for type ${type}` : `${field}: ${issue.message}`;
    throw new ValidationError(field, '[redacted]', message);
  }
  return { type, ...result.data } as StoredCredentials;
}

/** The AES-GCM additional data: a sealed blob only opens on the installation it was written for. */
export const credentialContext = (installation: Pick<InstallationItem, 'installationId' | 'userId' | 'resourceId'>) =>
  `credentials:${installation.installationId}:${installation.userId}:${installation.resourceId}`;

export const webhookSecretContext = (installation: Pick<InstallationItem, 'installationId'>) => `webhook-secret:${installation.installationId}`;

export async function openCredentials(vault: CredentialVault, installation: InstallationItem): Promise<StoredCredentials | undefined> {
  if (!installation.credentials) return undefined;
  return (await vault.decrypt(installation.credentials, credentialContext(installation))) as StoredCredentials;
}

/** Puts the credentials where the resource expects them. */
export function injectCredentials(
  endpoint: Endpoint,
  credentials: StoredCredentials,
  target: { headers: Record<string, string>; query: URLSearchParams },
): void {
  switch (credentials.type) {
    case 'api_key':
      if (endpoint.authConfig?.queryParam) target.query.set(endpoint.authConfig.queryParam, credentials.apiKey);
      else target.headers[endpoint.authConfig?.headerName ?? 'X-API-Key'] = credentials.apiKey;
      return;
    case 'bearer':
      target.headers.Authorization = `Bearer ${credentials.token}`;
      return;
    case 'basic':
      target.headers.Authorization = `Basic ${Buffer.from(`${credentials.username}:${credentials.password}`).toString('base64')}`;
      return;
    case 'oauth2':
      if (!credentials.accessToken)
        throw new ConflictError('this installation has no OAuth2 access token yet: complete the authorization first (POST .../oauth/authorize)', {
          reason: 'not_authorized',
        });
      target.headers.Authorization = `Bearer ${credentials.accessToken}`;
  }
}
