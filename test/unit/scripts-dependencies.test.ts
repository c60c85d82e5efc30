// The dependency rules without a package manager: shapes per runtime, the 50 MB count of code and tree, one stored
// tree per lock, and installer refusals as VALIDATION_ERROR naming the package.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../../functions/documents/ports.js';
import { type InstallRequest, type PackageInstaller, PackageRefusedError } from '../../functions/scripts/packages/dependency-port.js';
import { createDependencyService } from '../../functions/scripts/packages/dependencies.js';
import { maxPackageBytes } from '../../functions/scripts/model.js';
import { archiveKey, storeTree } from '../../functions/scripts/packages/package-trees.js';
import type { TreeRefStore } from '../../functions/scripts/packages/tree-ref-store.js';
import { systemClock } from '../../functions/platform/clock.js';
import { ValidationError } from '../../functions/platform/errors.js';

function memoryBlobs() {
  const blobs = new Map<string, Uint8Array>();
  const store: BlobStore = {
    put: async (key, bytes) => void blobs.set(key, bytes),
    get: async (key) => blobs.get(key),
    sizeOf: async (key) => blobs.get(key)?.byteLength,
    delete: async (key) => void blobs.delete(key),
    uploadTarget: async () => ({ url: '', method: 'PUT', headers: {} }),
  };
  return { blobs, store };
}

/** An installer that lays out `files` under nodejs/node_modules, locked as `lock`, and stores the tree as installers do. */
function fakeInstaller(blobs: BlobStore, files: Record<string, string | Uint8Array>, lock = 'lock-1'): PackageInstaller & { requests: InstallRequest[] } {
  const requests: InstallRequest[] = [];
  return {
    requests,
    async install(request) {
      requests.push(request);
      const root = mkdtempSync(join(tmpdir(), 'deps-unit-'));
      try {
        for (const [path, content] of Object.entries(files)) {
          const full = join(root, 'nodejs', 'node_modules', path);
          mkdirSync(join(full, '..'), { recursive: true });
          writeFileSync(full, content);
        }
        return { resolved: { ms: '2.1.3' }, ...(await storeTree(blobs, request.runtime, root, lock, request.maxBytes)) };
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

/** Counts in memory, as the scriptCounters items do (test/integration/scripts-tree-refs.test.ts runs the real ones). */
function memoryRefs(): TreeRefStore {
  const refs = new Map<string, number>();
  return {
    async hold(lockHash) {
      const counted = refs.has(lockHash);
      refs.set(lockHash, (refs.get(lockHash) ?? 0) + 1);
      return counted ? 'held' : 'new';
    },
    pin: async () => undefined,
    async release(lockHash, count) {
      refs.set(lockHash, refs.get(lockHash)! - count);
      return refs.get(lockHash)! <= 0;
    },
    markCollecting: async () => true,
    forget: async (lockHash) => void refs.delete(lockHash),
  };
}

const service = (installer: PackageInstaller, blobs: BlobStore) =>
  createDependencyService({
    installer: () => installer,
    blobs: () => blobs,
    refs: memoryRefs,
    runtime: () => ({ removeDependencyTree: async () => undefined }),
    registryOf: async () => undefined,
    clock: systemClock,
  });

describe('scripts: dependency rules', () => {
  it('stores one zip per lock in the layer layout and reports the installed size', async () => {
    // Prepare
    const { blobs, store } = memoryBlobs();
    const packages = service(fakeInstaller(store, { 'ms/index.js': 'module.exports = 1;' }), store);
    // Act
    const first = await packages.lock('usr_1', 'nodejs18', 4, { ms: '^2' });
    const second = await packages.lock('usr_2', 'nodejs18', 10, { ms: '2.1.3' });
    // Assess
    expect(first).toEqual({ declared: { ms: '^2' }, resolved: { ms: '2.1.3' }, lockHash: expect.stringMatching(/^[0-9a-f]{64}$/), sizeBytes: 19 });
    expect(second!.lockHash).toBe(first!.lockHash);
    expect([...blobs.keys()]).toEqual([archiveKey(first!.lockHash)]);
    expect(Object.keys(unzipSync(blobs.get(archiveKey(first!.lockHash))!))).toEqual(['nodejs/node_modules/ms/index.js']);
  });

  it('installs nothing for an empty declaration', async () => {
    // Prepare
    const { store } = memoryBlobs();
    const installer = fakeInstaller(store, {});
    // Act
    const locked = await service(installer, store).lock('usr_1', 'python3.11', 4, []);
    // Assess
    expect(locked).toBeUndefined();
    expect(installer.requests).toEqual([]);
  });

  it('counts the code with the tree against 50 MB and stores nothing past it', async () => {
    // Prepare
    const { blobs, store } = memoryBlobs();
    const packages = service(fakeInstaller(store, { 'big/blob.bin': new Uint8Array(maxPackageBytes - 999) }), store);
    // Act
    const refused = packages.lock('usr_1', 'nodejs18', 1000, { big: '1.0.0' });
    // Assess
    await expect(refused).rejects.toThrow(/come to 50\.0 MB \(52428801 bytes\); the limit is 50 MB/);
    expect(blobs.size).toBe(0);
  });

  it('refuses the wrong shape for the runtime and turns installer refusals into VALIDATION_ERROR with the package', async () => {
    // Prepare
    const refusing: PackageInstaller = { install: async () => Promise.reject(new PackageRefusedError('sharp', 'package sharp runs install scripts')) };
    const packages = service(refusing, memoryBlobs().store);
    // Act
    const outcomes = await Promise.allSettled([
      packages.lock('usr_1', 'nodejs18', 4, ['ms']),
      packages.lock('usr_1', 'python3.11', 4, { requests: '2' }),
      packages.lock('usr_1', 'python3.11', 4, ['requests'], '{}'),
      packages.lock('usr_1', 'nodejs18', 4, { sharp: '0.33.0' }),
    ]);
    // Assess
    const errors = outcomes.map((outcome) => (outcome as PromiseRejectedResult).reason as ValidationError);
    expect(errors.every((error) => error instanceof ValidationError)).toBe(true);
    expect(errors.map((error) => error.details?.field)).toEqual(['dependencies', 'dependencies', 'lockfile', 'dependencies']);
    expect(errors[3]!.details).toMatchObject({ package: 'sharp' });
  });
});
