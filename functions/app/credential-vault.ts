// The credential vault of this process's mode (KMS envelope encryption on AWS).
import { kmsCredentialVault } from '#adapters/aws/credential-vault.js';
import { envNames } from '#platform/env-names.js';
import type { CredentialVault } from '#platform/ports.js';
import { readEnv } from '#platform/settings.js';
import { localAdapters } from './platform.js';

// One per container: it caches decrypted data keys.
let awsCredentialVault: CredentialVault | undefined;

export const credentialVault = (): CredentialVault =>
  process.env.PLATFORM_MODE === 'local'
    ? localAdapters().credentialVault
    : (awsCredentialVault ??= kmsCredentialVault(() => readEnv(envNames.credentialsKeyArn)));
