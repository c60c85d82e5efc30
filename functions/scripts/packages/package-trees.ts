// An installed dependency tree as every installer stores it: the tree (`nodejs/...` or `python/...`, a Lambda layer's
// layout) zipped into the blob store under the hash of its runtime, its canonical lock and its installed files, once
// per such hash, and only when it fits the size it may take.
import { createHash } from 'node:crypto';
import { readFile, readdir } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { zipSync } from 'fflate';
import type { BlobStore } from '#platform/ports.js';
import { sha256Hex } from '#platform/ids.js';
import { PackageTooLargeError } from './dependency-port.js';
import type { RuntimeLabel } from '../model.js';

export const archiveKey = (lockHash: string) => `script-deps/${lockHash}.zip`;

/**
 * What names a tree: its runtime, its lock and the hash of the files installed. A lock only claims what was
 * installed (a registry that omits integrity leaves it no checksum): two installs of the same claims with
 * different files get different names, so no account's install can stand in for another's. The pip installer
 * function (installer/pip_installer.py) computes the same.
 */
export const treeHashOf = (runtime: RuntimeLabel, lock: string, contentHash: string) => sha256Hex(`${runtime}\n${lock}\n${contentHash}`);

/** sha256 over each file's path and the sha256 of its bytes, in the byte order of the paths. */
export function contentHashOf(files: Array<{ path: string; bytes: Uint8Array }>): string {
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file.path}\n${createHash('sha256').update(file.bytes).digest('hex')}\n`);
  return hash.digest('hex');
}

const byPathBytes = (a: { path: string }, b: { path: string }) => Buffer.compare(Buffer.from(a.path), Buffer.from(b.path));

/** Every regular file under `root`, by path relative to it; links (npm's `.bin`) are left out. */
async function filesUnder(root: string): Promise<Array<{ path: string; bytes: Uint8Array }>> {
  const files: Array<{ path: string; bytes: Uint8Array }> = [];
  for (const entry of await readdir(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    files.push({ path: relative(root, full), bytes: await readFile(full) });
  }
  return files.sort(byPathBytes);
}

/** A fixed date: equal trees give byte-equal zips. */
const zipOf = (files: Array<{ path: string; bytes: Uint8Array }>) =>
  zipSync(Object.fromEntries(files.map((file) => [file.path, file.bytes])), { level: 6, mtime: new Date('2020-01-01T00:00:00Z') });

/** Zips the tree under `root` into `blobs` unless an equal tree is stored already (`added` says which); past `maxBytes` unpacked, nothing is stored. */
export async function storeTree(
  blobs: BlobStore,
  runtime: RuntimeLabel,
  root: string,
  lock: string,
  maxBytes: number,
): Promise<{ lockHash: string; sizeBytes: number; added: boolean }> {
  const files = await filesUnder(root);
  const sizeBytes = files.reduce((sum, file) => sum + file.bytes.byteLength, 0);
  if (sizeBytes > maxBytes) throw new PackageTooLargeError(sizeBytes);
  const lockHash = treeHashOf(runtime, lock, contentHashOf(files));
  const added = (await blobs.sizeOf(archiveKey(lockHash))) === undefined;
  if (added) await blobs.put(archiveKey(lockHash), zipOf(files), 'application/zip');
  return { lockHash, sizeBytes, added };
}
