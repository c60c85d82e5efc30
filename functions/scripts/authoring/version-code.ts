// A version's code lives in the blob store (S3 on AWS, `.data/script-packages/` locally) under its script and hash,
// not in its DynamoDB item, which keeps the hash and the size. Versions of one script with equal code share a blob,
// and a script's blobs go with the script. Items written before code moved out carry it inline: `read` takes that.
import type { BlobStore } from '#platform/ports.js';
import { sha256Hex } from '#platform/ids.js';
import type { ScriptVersion } from '../model.js';

export const codeKey = (scriptId: string, codeHash: string) => `script-code/${scriptId}/${codeHash}`;

export function createVersionCode(blobs: () => BlobStore) {
  return {
    /** Stores `code` for a version about to be written (blob first, so no item points at nothing); what the item keeps. */
    async put(scriptId: string, code: string): Promise<Pick<ScriptVersion, 'codeHash' | 'codeBytes'>> {
      const codeHash = sha256Hex(code);
      const key = codeKey(scriptId, codeHash);
      const bytes = Buffer.from(code);
      if ((await blobs().sizeOf(key)) === undefined) await blobs().put(key, bytes, 'text/plain; charset=utf-8');
      return { codeHash, codeBytes: bytes.byteLength };
    },

    async read(version: Pick<ScriptVersion, 'scriptId' | 'codeHash' | 'code'>): Promise<string> {
      if (version.code !== undefined) return version.code;
      const bytes = await blobs().get(codeKey(version.scriptId, version.codeHash));
      if (!bytes) throw new Error(`the code of script ${version.scriptId} (${version.codeHash}) is missing from the blob store`);
      return Buffer.from(bytes).toString('utf8');
    },

    /** Removes the code of a deleted script's versions. */
    async remove(versions: Array<Pick<ScriptVersion, 'scriptId' | 'codeHash'>>): Promise<void> {
      const keys = new Set(versions.map((version) => codeKey(version.scriptId, version.codeHash)));
      await Promise.all([...keys].map((key) => blobs().delete(key)));
    },
  };
}

export type VersionCode = ReturnType<typeof createVersionCode>;
