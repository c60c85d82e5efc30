// KMS envelope encryption: a fresh data key per secret (GenerateDataKey under CREDENTIALS_KEY_ARN), AES-256-GCM with it,
// and the KMS-encrypted data key stored beside the ciphertext.
import type { KMSClient } from '@aws-sdk/client-kms';
import type { CredentialVault } from '#platform/ports.js';
import { openAesGcm, sealAesGcm } from '../aes-gcm.js';
import { traced } from '#platform/tracer.js';
import { onFirstUse } from './on-first-use.js';

const sdk = onFirstUse(() => import('@aws-sdk/client-kms'));

/** Decrypted data keys kept per container, so a warm function pays KMS once per secret, not once per call. */
const cacheTtlMs = 5 * 60_000;
const cacheMaxEntries = 1000;

const encryptionContext = (context: string) => ({ purpose: 'platform-credentials', context });

export function createKmsCredentialVault(client: () => KMSClient | Promise<KMSClient>, keyArn: () => string | undefined): CredentialVault {
  const dataKeys = new Map<string, { key: Buffer; expiresAt: number }>();

  async function dataKey(encryptedKey: string, context: string): Promise<Buffer> {
    const cacheKey = `${context}\n${encryptedKey}`;
    const cached = dataKeys.get(cacheKey);
    if (cached && cached.expiresAt > Date.now()) return cached.key;
    const { DecryptCommand } = await sdk();
    const { Plaintext } = await (await client()).send(
      new DecryptCommand({ CiphertextBlob: Buffer.from(encryptedKey, 'base64'), EncryptionContext: encryptionContext(context) }),
    );
    if (!Plaintext) throw new Error('KMS returned no data key');
    const key = Buffer.from(Plaintext);
    if (dataKeys.size >= cacheMaxEntries) dataKeys.delete(dataKeys.keys().next().value!);
    dataKeys.set(cacheKey, { key, expiresAt: Date.now() + cacheTtlMs });
    return key;
  }

  return {
    async encrypt(value, context) {
      const KeyId = keyArn();
      if (!KeyId) throw new Error('CREDENTIALS_KEY_ARN is not set: this function was not granted the credentials key');
      const { GenerateDataKeyCommand } = await sdk();
      const generated = await (await client()).send(new GenerateDataKeyCommand({ KeyId, KeySpec: 'AES_256', EncryptionContext: encryptionContext(context) }));
      if (!generated.Plaintext || !generated.CiphertextBlob) throw new Error('KMS returned no data key');
      const key = Buffer.from(generated.Plaintext);
      try {
        return {
          v: 1,
          kek: 'kms',
          ek: Buffer.from(generated.CiphertextBlob).toString('base64'),
          ...sealAesGcm(key, Buffer.from(JSON.stringify(value)), context),
        };
      } finally {
        key.fill(0);
      }
    },
    async decrypt(sealed, context) {
      if (sealed.kek !== 'kms' || !sealed.ek) throw new Error(`a ${sealed.kek} secret cannot be opened by the KMS vault`);
      const key = await dataKey(sealed.ek, context);
      return JSON.parse(openAesGcm(key, sealed, context).toString('utf8')) as Record<string, unknown>;
    },
  };
}

/** The vault of the stack's key, with a KMS client made on first use; the composition root keeps one per container. */
export function kmsCredentialVault(keyArn: () => string | undefined): CredentialVault {
  return createKmsCredentialVault(
    onFirstUse(async () => traced(new (await sdk()).KMSClient({}))),
    keyArn,
  );
}
