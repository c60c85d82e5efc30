import { timingSafeEqual } from 'node:crypto';
import { UnauthorizedError } from './errors.js';
import { sha256Hex } from './ids.js';
import { settings } from './settings.js';
import { traced } from './tracer.js';

let adminKey: Promise<string> | undefined;

/** `ADMIN_API_KEY` locally; on AWS the stack's generated secret, read once per container. */
function loadAdminKey(): Promise<string> {
  const localKey = settings.adminApiKey;
  if (localKey) return Promise.resolve(localKey);
  const secretArn = settings.adminKeySecretArn;
  if (!secretArn) return Promise.reject(new Error('neither ADMIN_API_KEY nor ADMIN_KEY_SECRET_ARN is set'));
  // Loaded here only: every function's HTTP kit reaches this module, few requests carry an admin key.
  return import('@aws-sdk/client-secrets-manager').then(({ GetSecretValueCommand, SecretsManagerClient }) =>
    traced(new SecretsManagerClient({}))
      .send(new GetSecretValueCommand({ SecretId: secretArn }))
      .then((secret) => secret.SecretString ?? ''),
  );
}

export async function checkAdminKey(presented: string | undefined): Promise<void> {
  if (!presented) throw new UnauthorizedError('the X-Admin-Key header is required');
  adminKey ??= loadAdminKey();
  const expected = await adminKey;
  // Hashing first gives equal-length buffers, so the comparison is constant-time whatever was sent.
  const match = timingSafeEqual(Buffer.from(sha256Hex(presented), 'hex'), Buffer.from(sha256Hex(expected), 'hex'));
  if (!expected || !match) throw new UnauthorizedError('the admin key is not valid');
}

/** Local runtime and tests set a new admin key at start-up. */
export const resetAdminKeyCache = () => {
  adminKey = undefined;
};
