import { existsSync, mkdtempSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createKmsCredentialVault } from '../../functions/adapters/aws/credential-vault.js';
import { localCredentialVault } from '../../functions/adapters/local/credential-vault.js';
import { type Moto, startMoto } from '../support/moto.js';

const secret = { type: 'api_key', apiKey: 'SENTINEL-vault-secret' };

describe('credential vault: local AES-256-GCM', () => {
  it('creates a 32-byte key file readable by its owner only, and reuses it', async () => {
    // Prepare
    process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'vault-'));
    const keyFile = join(process.env.DATA_DIR, 'credentials.key');
    // Act
    const sealed = await localCredentialVault.encrypt(secret, 'ctx-1');
    const key = readFileSync(keyFile);
    const again = await localCredentialVault.encrypt(secret, 'ctx-1');
    // Assess
    expect(existsSync(keyFile)).toBe(true);
    expect(key).toHaveLength(32);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(readFileSync(keyFile).equals(key)).toBe(true);
    expect(again.ct).not.toBe(sealed.ct);
    await expect(localCredentialVault.decrypt(again, 'ctx-1')).resolves.toEqual(secret);
  });

  it('keeps no plaintext in the sealed form and opens only under the context it was sealed with', async () => {
    // Prepare
    process.env.DATA_DIR = mkdtempSync(join(tmpdir(), 'vault-'));
    // Act
    const sealed = await localCredentialVault.encrypt(secret, 'installation-a');
    const tampered = { ...sealed, ct: Buffer.from(Buffer.from(sealed.ct, 'base64').map((byte, index) => (index === 0 ? byte ^ 1 : byte))).toString('base64') };
    // Assess
    expect(JSON.stringify(sealed)).not.toContain('SENTINEL');
    expect(sealed).toMatchObject({ v: 1, kek: 'local' });
    await expect(localCredentialVault.decrypt(sealed, 'installation-b')).rejects.toThrow();
    await expect(localCredentialVault.decrypt(tampered, 'installation-a')).rejects.toThrow();
  });
});

describe('credential vault: KMS envelope encryption (moto)', () => {
  let moto: Moto;
  let kms: KMSClient;
  let keyArn: string;

  beforeAll(async () => {
    moto = await startMoto();
    kms = new KMSClient(moto.clientConfig);
    keyArn = (await kms.send(new CreateKeyCommand({ Description: 'credentials' }))).KeyMetadata!.Arn!;
  });
  afterAll(async () => {
    kms.destroy();
    await moto.stop();
  });

  it('seals with a fresh KMS data key stored beside the ciphertext and opens it again', async () => {
    // Prepare
    const vault = createKmsCredentialVault(
      () => kms,
      () => keyArn,
    );
    // Act
    const sealed = await vault.encrypt(secret, 'installation-a');
    const opened = await vault.decrypt(sealed, 'installation-a');
    // Assess
    expect(sealed).toMatchObject({ v: 1, kek: 'kms', ek: expect.any(String), iv: expect.any(String), tag: expect.any(String), ct: expect.any(String) });
    expect(JSON.stringify(sealed)).not.toContain('SENTINEL');
    expect(opened).toEqual(secret);
  });

  it('refuses to open under another context, even in a fresh container', async () => {
    // Prepare
    const sealed = await createKmsCredentialVault(
      () => kms,
      () => keyArn,
    ).encrypt(secret, 'installation-a');
    const coldContainer = createKmsCredentialVault(
      () => kms,
      () => keyArn,
    );
    // Act
    const wrongContext = coldContainer.decrypt(sealed, 'installation-b');
    // Assess
    await expect(wrongContext).rejects.toThrow();
  });

  it('says plainly when the function was not granted the key', async () => {
    // Prepare
    const vault = createKmsCredentialVault(
      () => kms,
      () => undefined,
    );
    // Act
    const refused = vault.encrypt(secret, 'x');
    // Assess
    await expect(refused).rejects.toThrow(/CREDENTIALS_KEY_ARN/);
  });
});
