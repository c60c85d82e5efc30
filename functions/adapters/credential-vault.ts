import { settings } from '#platform/settings.js';
import type { CredentialVault } from '#platform/ports.js';
import { kmsCredentialVault } from './aws/credential-vault.js';
import { localCredentialVault } from './local/credential-vault.js';

export const credentialVault = (): CredentialVault => (settings.mode === 'local' ? localCredentialVault : kmsCredentialVault);
