// The installer functions of the stack (one per runtime) speak InstallerAnswer (dependency-port.ts): the API functions invoke them with an install
// request and get the stored tree or a structured refusal back (functions/adapters/aws/package-installer.ts).
// The npm one is below; the pip one is functions/scripts/packages/installer/pip_installer.py, answering the same shape.
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { BlobStore } from '#platform/ports.js';
import { type InstallRequest, type InstallerAnswer, PackageRefusedError, PackageResolutionError, PackageTooLargeError } from './dependency-port.js';
import { installNode, plainSite } from './package-managers.js';
import { archiveKey, storeTree } from './package-trees.js';

/** Refusals become answers; anything else is the function's own failure. */
export function answerOf(error: unknown): InstallerAnswer {
  if (error instanceof PackageResolutionError) return { ok: false, kind: 'resolution', package: error.packageName, message: error.message };
  if (error instanceof PackageRefusedError) return { ok: false, kind: 'refused', package: error.packageName, message: error.message };
  if (error instanceof PackageTooLargeError) return { ok: false, kind: 'tooLarge', sizeBytes: error.sizeBytes };
  throw error;
}

/**
 * npm without a sandbox of its own: the function's microVM is one, install scripts never run, and the command gets
 * no credential of the function. Each call starts from an empty directory and an empty cache, so nothing one
 * account fetched (from its private registry) is there for the next.
 */
export function createNpmInstallerFunction(deps: { blobs: () => BlobStore; workDir: string; timeoutMs: number }) {
  return async (request: InstallRequest): Promise<InstallerAnswer> => {
    const work = await mkdtemp(join(deps.workDir, 'install-'));
    try {
      const installed = await installNode(plainSite(work, join(work, 'cache'), deps.timeoutMs), request);
      const { lockHash, sizeBytes, added } = await storeTree(deps.blobs(), 'nodejs18', installed.tree, installed.lock, request.maxBytes);
      return { ok: true, resolved: installed.resolved, lock: installed.lock, key: archiveKey(lockHash), sizeBytes, added };
    } catch (error) {
      return answerOf(error);
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  };
}
