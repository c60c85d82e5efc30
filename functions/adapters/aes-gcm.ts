// AES-256-GCM with a 96-bit random IV, shared by both CredentialVault adapters.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

export interface AesGcmBox {
  iv: string;
  tag: string;
  ct: string;
}

export function sealAesGcm(key: Buffer, plaintext: Buffer, additionalData: string): AesGcmBox {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(additionalData));
  const ct = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return { iv: iv.toString('base64'), tag: cipher.getAuthTag().toString('base64'), ct: ct.toString('base64') };
}

/** Throws when the key, the additional data or any byte of the box differs from what was sealed. */
export function openAesGcm(key: Buffer, box: AesGcmBox, additionalData: string): Buffer {
  const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(box.iv, 'base64'));
  decipher.setAAD(Buffer.from(additionalData));
  decipher.setAuthTag(Buffer.from(box.tag, 'base64'));
  return Buffer.concat([decipher.update(Buffer.from(box.ct, 'base64')), decipher.final()]);
}
