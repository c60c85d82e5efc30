// An installed dependency tree as every installer stores it: the tree (`nodejs/...` or `python/...`, a Lambda layer's
// layout) zipped into the blob store under the hash of its runtime and canonical lock, once per lock, and only when
// it fits the size it may take.
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { zipSync } from 'fflate';
import type { BlobStore } from '#functions/documents/ports.js';
import { sha256Hex } from '#platform/ids.js';
import { PackageTooLargeError } from './dependency-port.js';
import type { RuntimeLabel } from './model.js';

export const archiveKey = (lockHash: string) => `script-deps/${lockHash}.zip`;

/** Equal locks mean equal trees: the hash names the stored zip and the Lambda layer made from it. */
export const lockHashOf = (runtime: RuntimeLabel, lock: string) => sha256Hex(`${runtime}\n${lock}`);

/** Every regular file under `root`, by path relative to it; links (npm's `.bin`) are left out. */
async function filesUnder(root: string): Promise<Array<{ path: string; bytes: Uint8Array }>> {
  const files: Array<{ path: string; bytes: Uint8Array }> = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    files.push({ path: relative(root, full), bytes: await readFile(full) });
  }
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

/** A fixed date: equal trees give byte-equal zips. */
const zipOf = (files: Array<{ path: string; bytes: Uint8Array }>) =>
  zipSync(Object.fromEntries(files.map((file) => [file.path, file.bytes])), { level: 6, mtime: new Date('2020-01-01T00:00:00Z') });

/** Zips the tree under `root` into `blobs` unless its lock is stored already (`added` says which); past `maxBytes` unpacked, nothing is stored. */
export async function storeTree(blobs: BlobStore, runtime: RuntimeLabel, root: string, lock: string, maxBytes: number): Promise<{ lockHash: string; sizeBytes: number; added: boolean }> {
  const files = await filesUnder(root);
  const sizeBytes = files.reduce((sum, file) => sum + file.bytes.byteLength, 0);
  if (sizeBytes > maxBytes) throw new PackageTooLargeError(sizeBytes);
  const lockHash = lockHashOf(runtime, lock);
  const added = (await blobs.sizeOf(archiveKey(lockHash))) === undefined;
  if (added) await blobs.put(archiveKey(lockHash), zipOf(files), 'application/zip');
  return { lockHash, sizeBytes, added };
}
