// The local adapter of each port, installed into the platform root (functions/app/platform.ts) by the local
// runtime. Services that hold processes or timers start on first use and stop with the platform.
import { join } from 'node:path';
import type { Embedder } from '#functions/documents/ports.js';
import type { ScriptSettings } from '#functions/scripts/settings.js';
import { createMemoryRunSlots } from '#functions/scripts/runs/run-slots.js';
import { settings } from '#platform/settings.js';
import type { LocalAdapters } from '#functions/app/platform.js';
import { createBackgroundRuns } from './background-jobs.js';
import { childProcessRunner } from './build-runner.js';
import { localCredentialVault } from './credential-vault.js';
import { inProcessBus } from './event-bus.js';
import { createFileBlobStore } from './file-blob-store.js';
import { memoryRateLimiter } from './rate-limiter.js';
import { onLocalShutdown, startedOnFirstUse } from './lifecycle.js';
import { backgroundPayoutTrigger } from './payout-trigger.js';
import { localPagesHost } from './pages-host.js';
import { localScheduler } from './scheduler.js';
import { logMetrics } from './log-metrics.js';
import { createLocalPackageInstaller } from './package-installer.js';
import { type LocalScriptRuntime, createLocalScriptRuntime } from './script-pool.js';
import { solanaDevTools } from './solana-dev-tools.js';
import { createLocalTemplateBuilder } from './template-builder.js';
import { createUseEmbedder } from './use-embedder.js';

/** The script pool starts on first use and stops with the platform. */
export const localScriptRuntime: (scripts: ScriptSettings) => LocalScriptRuntime = startedOnFirstUse(
  (scripts: ScriptSettings) =>
    createLocalScriptRuntime({
      stageDir: join(settings.dataDir, 'scripts'),
      functionPrefix: settings.scriptFunctionPrefix,
      idleMs: scripts.idleMs,
      maxWorkers: scripts.maxWorkers,
      sandbox: scripts.sandbox,
      python: scripts.python,
    }),
  (pool) => pool.stop(),
);

/** One process runs every script: the slots live in its memory, afresh for each start. */
const localRunSlots = startedOnFirstUse(
  () => createMemoryRunSlots(),
  () => undefined,
);

const scriptPackages = () => createFileBlobStore('script-packages');

let rateLimiter: ReturnType<typeof memoryRateLimiter> | undefined;
let embedder: Embedder | undefined;

export const localAdapters: LocalAdapters = {
  eventBus: inProcessBus,
  scheduler: localScheduler,
  // One process: the fixed windows live in memory for the life of the process, as the table's items would.
  rateLimiter: () => (rateLimiter ??= memoryRateLimiter()),
  credentialVault: localCredentialVault,
  blobStore: createFileBlobStore,
  backgroundRuns: createBackgroundRuns,
  embedder: (documents) => (embedder ??= createUseEmbedder(documents.embeddingWorkers)),
  scriptRuntime: localScriptRuntime,
  runSlots: localRunSlots,
  packageInstaller: (scripts) =>
    createLocalPackageInstaller({
      workDir: join(settings.dataDir, 'package-installs'),
      cacheDir: join(settings.dataDir, 'package-cache'),
      timeoutMs: (scripts.packageInstallTimeoutSeconds ?? 180) * 1000,
      blobs: scriptPackages,
      sandbox: scripts.sandbox,
      python: scripts.python,
    }),
  scriptPackages,
  // Loaded on first use: the embedded bank's native module is large.
  solanaLedger: async () => (await import('./solana-ledger.js')).bankLedger(),
  platformSigners: async () => (await import('./solana-signers.js')).bankSigners(),
  payoutTrigger: backgroundPayoutTrigger,
  templateBuilder({ sandbox, ...options }) {
    const runner = childProcessRunner(sandbox);
    const builder = createLocalTemplateBuilder({
      pagesDir: join(settings.dataDir, 'pages'),
      workDir: join(settings.dataDir, 'template-builds'),
      runner,
      ...options,
    });
    // Builds waiting their turn fail first (their records are written while the database still runs), then the running ones are killed.
    onLocalShutdown(() => {
      builder.stop();
      runner.stop();
    });
    return builder;
  },
  pagesHost: localPagesHost,
  metrics: logMetrics,
  solanaDevTools,
};
