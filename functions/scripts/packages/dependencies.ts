// A version's packages: resolved, installed and locked once when the version is created, kept as one zip in the
// blob store under the hash of its lock and installed files (so versions with equal trees share it, and equal claims
// with different files never do), and counted with the code against the interface's 50 MB. The version item holds
// only what was declared, what was resolved and that hash (`lockHash`). Each tree counts the versions using it
// (tree-ref-store.ts) and is removed when the last one goes.
import type { BlobStore } from '#platform/ports.js';
import type { Clock } from '#platform/clock.js';
import { ConflictError, ValidationError } from '#platform/errors.js';
import { logger } from '#platform/logger.js';
import {
  type InstallRequest,
  type PackageInstaller,
  type PackageRegistry,
  PackageRefusedError,
  PackageResolutionError,
  PackageTooLargeError,
} from './dependency-port.js';
import { type DeclaredDependencies, type RuntimeLabel, type ScriptVersion, type VersionDependencies, maxPackageBytes } from '../model.js';
import { archiveKey } from './package-trees.js';
import type { TreeRefStore } from './tree-ref-store.js';
import type { DependencyTree } from '../runs/runtime-port.js';

export type Ecosystem = 'npm' | 'pypi';
export const ecosystemOf = (runtime: RuntimeLabel): Ecosystem => (runtime === 'nodejs18' ? 'npm' : 'pypi');

const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

function checkShape(runtime: RuntimeLabel, declared: DeclaredDependencies, lockfile: string | undefined) {
  if (runtime === 'nodejs18' && Array.isArray(declared)) {
    throw new ValidationError('dependencies', declared, 'a node script declares dependencies as a map {"<package>": "<semver range>"}');
  }
  if (runtime === 'python3.11' && !Array.isArray(declared)) {
    throw new ValidationError('dependencies', declared, 'a python script declares dependencies as a list of requirements, e.g. ["requests==2.32.3"]');
  }
  if (lockfile !== undefined && runtime !== 'nodejs18')
    throw new ValidationError('lockfile', '(lockfile)', 'a lockfile (package-lock.json) is for node scripts only');
}

const isEmpty = (declared: DeclaredDependencies) => (Array.isArray(declared) ? declared.length === 0 : Object.keys(declared).length === 0);

/** A removal that has not finished in this long died with its process (it takes one blob delete); a holder takes it over. */
const staleCollectionMs = 10 * 60 * 1000;
/** How long a new version waits for the removal of the tree it needs to finish. */
const holdWaitMs = 5000;
const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export function createDependencyService(deps: {
  installer: () => PackageInstaller;
  blobs: () => BlobStore;
  refs: () => TreeRefStore;
  /** The ScriptRuntime (runtime-port.ts), which holds the copies made from trees (unpacked, published as layers). */
  runtime: () => { removeDependencyTree(lockHash: string): Promise<void> };
  registryOf: (userId: string, ecosystem: Ecosystem) => Promise<PackageRegistry | undefined>;
  clock: Clock;
}) {
  /**
   * Counts one more version using the tree, waiting out a removal under way, and stores it again (`restore`) if it is
   * missing. A count that did not exist while the tree was stored before this version came means a tree stored
   * before counting began, which older versions use uncounted: it is pinned and never removed.
   */
  async function hold(lockHash: string, tree: { storedBefore?: boolean; restore?: () => Promise<unknown> }): Promise<void> {
    const holdOnce = () => deps.refs().hold(lockHash, new Date(deps.clock.now() - staleCollectionMs).toISOString());
    const deadline = deps.clock.now() + holdWaitMs;
    let held = await holdOnce();
    for (let interval = 25; held === 'collecting'; interval = Math.min(interval * 2, 1000)) {
      if (deps.clock.now() >= deadline) throw new ConflictError(`the installed dependencies ${lockHash} are being removed; try again`, { lockHash });
      await pause(interval);
      held = await holdOnce();
    }
    try {
      const stored = (await deps.blobs().sizeOf(archiveKey(lockHash))) !== undefined;
      if (held === 'new' && (tree.storedBefore ?? stored)) await deps.refs().pin(lockHash);
      if (!stored && tree.restore) await tree.restore();
    } catch (error) {
      await release(lockHash, 1);
      throw error;
    }
  }

  /**
   * A copy left behind holds the same tree as the lock hash names, and is found and used again if the lock comes
   * back: a failure to remove it costs storage only, and the removal goes on.
   */
  async function removeCopies(lockHash: string): Promise<void> {
    try {
      await deps.runtime().removeDependencyTree(lockHash);
    } catch (error) {
      logger.error('removing the copies of an unused dependency tree failed', { lockHash, error: String(error) });
    }
  }

  /** `count` versions using the tree are gone; the tree and its copies are removed when no version uses it any more. */
  async function release(lockHash: string, count: number): Promise<void> {
    if (!(await deps.refs().release(lockHash, count))) return;
    const at = deps.clock.nowIso();
    if (!(await deps.refs().markCollecting(lockHash, at))) return;
    // Before the count goes: a new version with this lock waits until its copies are gone, so it never meets half of one.
    await removeCopies(lockHash);
    await deps.blobs().delete(archiveKey(lockHash));
    await deps.refs().forget(lockHash, at);
  }

  return {
    /**
     * Installs `declared` for a new version, stores the tree and holds it for the version (release it if the version
     * is not written); undefined when nothing is declared. Refuses with VALIDATION_ERROR naming the package that cannot
     * be resolved or is not installable, or the size of code and packages past 50 MB.
     */
    async lock(
      userId: string,
      runtime: RuntimeLabel,
      codeBytes: number,
      declared: DeclaredDependencies,
      lockfile?: string,
    ): Promise<VersionDependencies | undefined> {
      checkShape(runtime, declared, lockfile);
      if (isEmpty(declared)) return undefined;
      const request: InstallRequest = {
        userId,
        runtime,
        declared,
        lockfile,
        registry: await deps.registryOf(userId, ecosystemOf(runtime)),
        maxBytes: maxPackageBytes - codeBytes,
      };
      try {
        const tree = await deps.installer().install(request);
        // The installer stores the tree; a removal finishing in between takes it away again, and then it is reinstalled.
        await hold(tree.lockHash, { storedBefore: !tree.added, restore: () => deps.installer().install(request) });
        return { declared, resolved: tree.resolved, lockHash: tree.lockHash, sizeBytes: tree.sizeBytes };
      } catch (error) {
        if (error instanceof PackageResolutionError || error instanceof PackageRefusedError) {
          throw new ValidationError('dependencies', error.packageName, error.message, { package: error.packageName });
        }
        if (error instanceof PackageTooLargeError) {
          const total = error.sizeBytes + codeBytes;
          throw new ValidationError(
            'dependencies',
            declared,
            `code and installed dependencies come to ${megabytes(total)} MB (${total} bytes); the limit is 50 MB`,
            {
              sizeBytes: total,
              limitBytes: maxPackageBytes,
            },
          );
        }
        throw error;
      }
    },

    /** Holds the tree of `dependencies` for one more version (a new version keeping the previous one's packages). */
    keep: (dependencies: VersionDependencies) => hold(dependencies.lockHash, {}),

    /** A version holding the tree of `dependencies` was not written after all. */
    release: (dependencies: VersionDependencies) => release(dependencies.lockHash, 1),

    /**
     * Deleted versions no longer use their trees: each tree no version uses any more is removed. Versions written
     * before trees were counted (they hold their code inline, without `codeBytes`) never counted themselves.
     */
    async releaseAll(versions: Array<Pick<ScriptVersion, 'dependencies' | 'codeBytes'>>): Promise<void> {
      const counts = new Map<string, number>();
      for (const { dependencies, codeBytes } of versions) {
        if (dependencies && codeBytes !== undefined) counts.set(dependencies.lockHash, (counts.get(dependencies.lockHash) ?? 0) + 1);
      }
      await Promise.all([...counts].map(([lockHash, count]) => release(lockHash, count)));
    },

    /** The tree a runtime mounts for `version`; undefined for a version without packages. */
    treeOf(version: Pick<ScriptVersion, 'dependencies'>): DependencyTree | undefined {
      const lockHash = version.dependencies?.lockHash;
      if (!lockHash) return undefined;
      return {
        lockHash,
        async archive() {
          const bytes = await deps.blobs().get(archiveKey(lockHash));
          if (!bytes) throw new Error(`the installed dependencies ${lockHash} are missing from the blob store`);
          return bytes;
        },
      };
    },
  };
}

export type DependencyService = ReturnType<typeof createDependencyService>;
