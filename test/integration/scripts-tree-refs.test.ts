// Installed dependency trees are shared by lock hash and removed with the last version using them: the counts live in
// DynamoDB Local (scriptCounters), so a version created while its tree is being removed never ends up without it.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { BlobStore } from '../../functions/documents/ports.js';
import { systemClock } from '../../functions/platform/clock.js';
import { newId } from '../../functions/platform/ids.js';
import type { PackageInstaller } from '../../functions/scripts/packages/dependency-port.js';
import { type DependencyService, createDependencyService } from '../../functions/scripts/packages/dependencies.js';
import type { VersionDependencies } from '../../functions/scripts/model.js';
import { archiveKey, storeTree } from '../../functions/scripts/packages/package-trees.js';
import { type TreeRefStore, createTreeRefStore } from '../../functions/scripts/packages/tree-ref-store.js';

let refs: TreeRefStore;

beforeAll(() => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
  refs = createTreeRefStore();
});

/** Blobs in memory; `gate` holds a delete until opened, and `deleting` says one is waiting. */
function blobStore() {
  const blobs = new Map<string, Uint8Array>();
  let open: () => void = () => undefined;
  const gate = new Promise<void>((resolve) => (open = resolve));
  let deleting: () => void = () => undefined;
  const waiting = new Promise<void>((resolve) => (deleting = resolve));
  const gated = { on: false };
  const store: BlobStore = {
    put: async (key, bytes) => void blobs.set(key, bytes),
    get: async (key) => blobs.get(key),
    sizeOf: async (key) => blobs.get(key)?.byteLength,
    async delete(key) {
      if (gated.on) {
        deleting();
        await gate;
      }
      blobs.delete(key);
    },
    uploadTarget: async () => ({ url: '', method: 'PUT', headers: {} }),
  };
  return { blobs, store, gated, open, waiting };
}

/** Stands in for npm: a one-file tree under a lock of its own, so each test counts its own tree; stored as installers do. */
function installer(blobs: BlobStore): PackageInstaller {
  const lock = newId('lock');
  return {
    async install(request) {
      const root = mkdtempSync(join(tmpdir(), 'tree-refs-'));
      try {
        mkdirSync(join(root, 'nodejs', 'node_modules', 'ms'), { recursive: true });
        writeFileSync(join(root, 'nodejs', 'node_modules', 'ms', 'index.js'), 'module.exports = 1;');
        return { resolved: { ms: '2.1.3' }, ...(await storeTree(blobs, request.runtime, root, lock, request.maxBytes)) };
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    },
  };
}

/** `copiesRemoved` lists the trees whose copies the runtime was told to remove; `copiesFail` makes that fail. */
function given(counts: TreeRefStore = refs, copiesFail = false) {
  const blobs = blobStore();
  const npm = installer(blobs.store);
  const copiesRemoved: string[] = [];
  const runtime = {
    async removeDependencyTree(lockHash: string) {
      if (copiesFail) throw new Error('the runtime is unreachable');
      copiesRemoved.push(lockHash);
    },
  };
  const packages: DependencyService = createDependencyService({
    installer: () => npm,
    blobs: () => blobs.store,
    refs: () => counts,
    runtime: () => runtime,
    registryOf: async () => undefined,
    clock: systemClock,
  });
  const lock = async () => (await packages.lock('usr_refs', 'nodejs18', 100, { ms: '^2.1.0' }))!;
  const stored = (dependencies: VersionDependencies) => blobs.blobs.has(archiveKey(dependencies.lockHash));
  return { ...blobs, packages, lock, stored, copiesRemoved };
}

describe('scripts: installed trees shared and removed by count', () => {
  it('keeps a tree while any version uses it, removes it and its copies with the last, and stores it again for a new one', async () => {
    // Prepare
    const { packages, lock, stored, copiesRemoved } = given();
    const first = await lock();
    await packages.keep(first);
    // Act
    await packages.release(first);
    const afterOne = [stored(first), [...copiesRemoved]];
    await packages.releaseAll([{ dependencies: first, codeBytes: 100 }]);
    const afterBoth = [stored(first), [...copiesRemoved]];
    const again = await lock();
    // Assess
    expect([afterOne, afterBoth, stored(again)]).toEqual([[true, []], [false, [first.lockHash]], true]);
    expect(again.lockHash).toBe(first.lockHash);
  });

  it('removes an unused tree even when its copies cannot be removed, and a new version with its lock is not kept waiting', async () => {
    // Prepare
    const { packages, lock, stored } = given(refs, true);
    const dependencies = await lock();
    // Act
    await packages.release(dependencies);
    const afterRemoval = stored(dependencies);
    const again = await lock();
    // Assess
    expect(afterRemoval).toBe(false);
    expect(stored(again)).toBe(true);
  });

  it('lets a version created while its tree is being removed wait for the removal, then stores the tree again', async () => {
    // Prepare
    let sawRemoval: () => void = () => undefined;
    const removalSeen = new Promise<void>((resolve) => (sawRemoval = resolve));
    const watched: TreeRefStore = {
      ...refs,
      async hold(lockHash, staleBefore) {
        const held = await refs.hold(lockHash, staleBefore);
        if (held === 'collecting') sawRemoval();
        return held;
      },
    };
    const { packages, lock, stored, gated, open, waiting } = given(watched);
    const dependencies = await lock();
    gated.on = true;
    // Act
    const removal = packages.release(dependencies);
    await waiting;
    const created = lock();
    await removalSeen;
    open();
    await removal;
    const recreated = await created;
    // Assess
    expect(recreated.lockHash).toBe(dependencies.lockHash);
    expect(stored(recreated)).toBe(true);
  });

  it('takes over a removal that died half-way and stores the tree again', async () => {
    // Prepare
    const { lock, stored, blobs } = given();
    const dependencies = await lock();
    await refs.release(dependencies.lockHash, 1);
    await refs.markCollecting(dependencies.lockHash, '2020-01-01T00:00:00.000Z');
    blobs.delete(archiveKey(dependencies.lockHash));
    // Act
    const again = await lock();
    // Assess
    expect(stored(again)).toBe(true);
  });

  it('never removes a tree stored before counting began, which older versions use uncounted', async () => {
    // Prepare
    const { packages, stored, blobs } = given();
    const dependencies: VersionDependencies = { declared: { ms: '^2.1.0' }, resolved: { ms: '2.1.3' }, lockHash: newId('legacy'), sizeBytes: 19 };
    const uncounted: VersionDependencies = { ...dependencies, lockHash: newId('legacy') };
    for (const tree of [dependencies, uncounted]) blobs.set(archiveKey(tree.lockHash), new Uint8Array(19));
    // Act: a new version keeps a tree older versions use uncounted; then the script goes, old and new versions alike.
    await packages.keep(dependencies);
    await packages.releaseAll([{ dependencies }, { dependencies, codeBytes: 100 }, { dependencies: uncounted }]);
    // Assess
    expect(stored(dependencies)).toBe(true);
    expect(stored(uncounted)).toBe(true);
  });
});
