// A version's packages: resolved, installed and locked once when the version is created, kept as one zip in the
// blob store under the lock's hash (so versions with equal locks share it), and counted with the code against
// SPEC.md's 50 MB. The version item holds only what was declared, what was resolved and the lock's hash.
import type { BlobStore } from '#functions/documents/ports.js';
import { ValidationError } from '#platform/errors.js';
import { type PackageInstaller, type PackageRegistry, PackageRefusedError, PackageResolutionError, PackageTooLargeError } from './dependency-port.js';
import type { DeclaredDependencies, RuntimeLabel, ScriptVersion, VersionDependencies } from './model.js';
import { archiveKey } from './package-trees.js';

/** SPEC.md Limits/Scripts: code size 50 MB including dependencies. */
export const maxPackageBytes = 50 * 1024 * 1024;

export type Ecosystem = 'npm' | 'pypi';
export const ecosystemOf = (runtime: RuntimeLabel): Ecosystem => (runtime === 'nodejs18' ? 'npm' : 'pypi');

/** What a runtime needs to mount a version's packages: the tree's key and its zip (a Lambda layer's layout). */
export interface DependencyTree {
  lockHash: string;
  archive: () => Promise<Uint8Array>;
}

const megabytes = (bytes: number) => (bytes / 1024 / 1024).toFixed(1);

function checkShape(runtime: RuntimeLabel, declared: DeclaredDependencies, lockfile: string | undefined) {
  if (runtime === 'nodejs18' && Array.isArray(declared)) {
    throw new ValidationError('dependencies', declared, 'a node script declares dependencies as a map {"<package>": "<semver range>"}');
  }
  if (runtime === 'python3.11' && !Array.isArray(declared)) {
    throw new ValidationError('dependencies', declared, 'a python script declares dependencies as a list of requirements, e.g. ["requests==2.32.3"]');
  }
  if (lockfile !== undefined && runtime !== 'nodejs18') throw new ValidationError('lockfile', '(lockfile)', 'a lockfile (package-lock.json) is for node scripts only');
}

const isEmpty = (declared: DeclaredDependencies) => (Array.isArray(declared) ? declared.length === 0 : Object.keys(declared).length === 0);

export function createDependencyService(deps: {
  installer: () => PackageInstaller;
  blobs: () => BlobStore;
  registryOf: (userId: string, ecosystem: Ecosystem) => Promise<PackageRegistry | undefined>;
}) {
  return {
    /**
     * Installs `declared` for a new version and stores the tree; undefined when nothing is declared. Refuses with
     * VALIDATION_ERROR naming the package that cannot be resolved or is not installable, or the size past 50 MB.
     */
    async lock(userId: string, runtime: RuntimeLabel, code: string, declared: DeclaredDependencies, lockfile?: string): Promise<VersionDependencies | undefined> {
      checkShape(runtime, declared, lockfile);
      if (isEmpty(declared)) return undefined;
      const registry = await deps.registryOf(userId, ecosystemOf(runtime));
      const codeBytes = Buffer.byteLength(code);
      try {
        const tree = await deps.installer().install({ runtime, declared, lockfile, registry, maxBytes: maxPackageBytes - codeBytes });
        return { declared, resolved: tree.resolved, lockHash: tree.lockHash, sizeBytes: tree.sizeBytes };
      } catch (error) {
        if (error instanceof PackageResolutionError || error instanceof PackageRefusedError) {
          throw new ValidationError('dependencies', error.packageName, error.message, { package: error.packageName });
        }
        if (error instanceof PackageTooLargeError) {
          const total = error.sizeBytes + codeBytes;
          throw new ValidationError('dependencies', declared, `code and installed dependencies come to ${megabytes(total)} MB (${total} bytes); the limit is 50 MB`, {
            sizeBytes: total, limitBytes: maxPackageBytes,
          });
        }
        throw error;
      }
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
