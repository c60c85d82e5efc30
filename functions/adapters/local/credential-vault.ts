// Local mode: AES-256-GCM with a 32-byte key in `<dataDir>/credentials.key`, created on first use, readable by its owner only.
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { settings } from '#platform/settings.js';
import type { CredentialVault } from '#platform/ports.js';
import { openAesGcm, sealAesGcm } from '../aes-gcm.js';

const keys = new Map<string, Promise<Buffer>>();

async function readOrCreateKey(path: string): Promise<Buffer> {
  let key: Buffer;
  try {
    key = await readFile(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    await mkdir(resolve(path, '..'), { recursive: true });
    key = randomBytes(32);
    try {
      // `wx`: two processes starting together must not each write a different key.
      await writeFile(path, key, { mode: 0o600, flag: 'wx' });
    } catch (raced) {
      if ((raced as NodeJS.ErrnoException).code !== 'EEXIST') throw raced;
      key = await readFile(path);
    }
  }
  if (key.length !== 32) throw new Error(`${path} must hold exactly 32 bytes`);
  return key;
}

function keyFor(dataDir: string): Promise<Buffer> {
  const path = join(resolve(dataDir), 'credentials.key');
  let key = keys.get(path);
  if (!key) {
    key = readOrCreateKey(path);
    key.catch(() => keys.delete(path));
    keys.set(path, key);
  }
  return key;
}

export const localCredentialVault: CredentialVault = {
  async encrypt(value, context) {
    const key = await keyFor(settings.dataDir);
    return { v: 1, kek: 'local', ...sealAesGcm(key, Buffer.from(JSON.stringify(value)), context) };
  },
  async decrypt(sealed, context) {
    if (sealed.kek !== 'local') throw new Error(`a ${sealed.kek} secret cannot be opened by the local vault`);
    const key = await keyFor(settings.dataDir);
    return JSON.parse(openAesGcm(key, sealed, context).toString('utf8')) as Record<string, unknown>;
  },
};
