import { config } from '#platform/config.js';
import type { CredentialVault } from '#platform/ports.js';
import { kmsCredentialVault } from './aws/credential-vault.js';
import { localCredentialVault } from './local/credential-vault.js';

export const credentialVault = (): CredentialVault => (config.mode === 'local' ? localCredentialVault : kmsCredentialVault);
