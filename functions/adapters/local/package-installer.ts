// Local adapter of the PackageInstaller port: npm or pip (functions/scripts/packages/package-managers.ts) inside bubblewrap,
// reaching the registry only through the egress guard (egress-proxy.ts: the account's registry origin and public
// addresses, never the platform's), the install's own directories and the account's own download cache as the only
// writable places, and a time limit. Nothing of the platform's data is visible. The tree is stored in the blob store.
// The cache is per account: npm takes a tarball whose integrity a lockfile names from its cache without asking any
// registry, so a shared cache handed one account's private packages to whoever named their hash.
import { chownSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { BlobStore } from '#functions/documents/ports.js';
import { type PackageInstaller, type PackageRegistry, PackageResolutionError } from '#functions/scripts/packages/dependency-port.js';
import { logger } from '#platform/logger.js';
import { type InstallSite, installNode, installPython, plainSite, spawnLimited } from '#functions/scripts/packages/package-managers.js';
import { storeTree } from '#functions/scripts/packages/package-trees.js';
import { startEgressProxy } from './egress-proxy.js';
import { type SandboxChoice, type SandboxMode, handOver, installSandboxCommand, letOthersTraverse, scriptSandbox } from './script-sandbox.js';
import { workerPython } from './script-pool.js';

export interface InstallerOptions {
  /** Where installs happen; removed after each. */
  workDir: string;
  /** npm's and pip's download caches, kept between installs (a warm cache): one folder per account under it. */
  cacheDir: string;
  timeoutMs: number;
  /** Where installed trees are kept, one zip per lock. */
  blobs: () => BlobStore;
  /** The operator's choice of isolation (SCRIPT_SANDBOX); default bubblewrap. */
  sandbox?: SandboxChoice;
  /** The Python interpreter of pip installs, a command or a path (the scripts area's `python` setting). */
  python: string;
}

/** Paths inside the sandbox. */
const inside = { work: '/install', cache: '/cache' };

/** The account's cache folder; user ids are the platform's own, checked anyway since they become a path. */
function accountCache(options: InstallerOptions, userId: string): string {
  if (!/^[A-Za-z0-9_-]{1,64}$/.test(userId)) throw new Error('an install needs the id of the account it is for');
  return join(options.cacheDir, userId);
}

function sandboxSite(sandbox: SandboxMode, work: string, cache: string, options: InstallerOptions, registry?: PackageRegistry): InstallSite {
  const writable = { [inside.work]: work, [inside.cache]: cache };
  if (sandbox.kind !== 'bwrap') return plainSite(work, cache, options.timeoutMs);
  return {
    dir: work,
    seenAs: inside.work,
    cache: inside.cache,
    timeoutMs: options.timeoutMs,
    async run(command, env) {
      handOver(sandbox, [work]);
      const onRefused = (line: string) => logger.warn('package install: egress refused', { line });
      const egress = await startEgressProxy({ allowedOrigins: registry ? [registry.url] : [], onRefused });
      try {
        const spec = installSandboxCommand(sandbox, {
          systemDirs: [dirname(dirname(command[0]!))],
          writable,
          addressSpaceMb: 4096,
          env,
          command,
          egressSocketDir: egress.socketDir,
        });
        return await spawnLimited(spec.file, spec.args, spec.env, options.timeoutMs, spec.uid === undefined ? undefined : { uid: spec.uid, gid: spec.gid! });
      } finally {
        await egress.close();
      }
    },
  };
}

export function createLocalPackageInstaller(options: InstallerOptions): PackageInstaller {
  return {
    async install(request) {
      const sandbox = scriptSandbox(options.sandbox);
      const cache = accountCache(options, request.userId);
      await mkdir(options.workDir, { recursive: true });
      await mkdir(cache, { recursive: true });
      if (sandbox.kind === 'bwrap' && sandbox.runAs)
        letOthersTraverse([options.workDir, dirname(options.workDir), options.cacheDir, dirname(options.cacheDir)]);
      const work = await mkdtemp(join(options.workDir, 'install-'));
      if (sandbox.kind === 'bwrap' && sandbox.runAs) chownSync(cache, sandbox.runAs.uid, sandbox.runAs.gid);
      const site = sandboxSite(sandbox, work, cache, options, request.registry);
      try {
        let installed;
        if (request.runtime === 'nodejs18') installed = await installNode(site, request);
        else {
          const python = await workerPython(options.python, sandbox);
          if (!python) throw new PackageResolutionError((request.declared as string[]).join(', '), 'python3 is not installed on this machine');
          installed = await installPython(site, request, python);
        }
        const stored = await storeTree(options.blobs(), request.runtime, installed.tree, installed.lock, request.maxBytes);
        return { resolved: installed.resolved, ...stored };
      } finally {
        await rm(work, { recursive: true, force: true });
      }
    },
  };
}
