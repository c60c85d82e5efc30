// The platform root (the composition above the kernel): one platform object per start, `createPlatform(adapters,
// settings)`, holding every area's settings parsed once and the kernel's ports. On AWS it is built on the first call
// of `platform()` in a Lambda container, from the AWS ports (./aws-ports.ts, each adapter loaded on its first call);
// locally the runtime (bin/local.ts, or a test's setup file) installs the local adapters
// (functions/adapters/local/adapters.ts) and the platform is built from them on first use after that. Installing
// again (a restart, or a test that changed the environment) makes the next use build a new platform object, whose
// compositions are built afresh.
//
// An area's own ports (documents, scripts, payments, templates) are not on this object: each area's adapter module
// beside this one makes them from the platform (`documentAdapters(platform)`), so that a Lambda bundle holds only the
// AWS adapters of the areas it composes, as esbuild puts every module a bundle's imports reach into it. On AWS the
// bundler fixes the mode (lib/bundles.ts defines `process.env.PLATFORM_MODE` as "aws"), so every local branch folds
// away and no local adapter reaches a Lambda bundle. The HTTP kit's own ports (metrics, rate limiter) live in
// ./edge.ts, which every bundle loads.
import type { Embedder } from '#functions/documents/ports.js';
import { flowSettingsSchema } from '#functions/flows/settings.js';
import { type DocumentSettings, documentSettingsSchema } from '#functions/documents/settings.js';
import type { PlatformSigners, SolanaLedger } from '#functions/payments/ports.js';
import { paymentSettingsSchema } from '#functions/payments/settings.js';
import type { PackageInstaller } from '#functions/scripts/packages/dependency-port.js';
import type { RunSlots } from '#functions/scripts/runs/run-slots.js';
import type { ScriptRuntime } from '#functions/scripts/runs/runtime-port.js';
import { type ScriptSettings, scriptSettingsSchema } from '#functions/scripts/settings.js';
import type { BuildOutcome } from '#functions/templates/model.js';
import type { PagesHost, TemplateBuilder } from '#functions/templates/ports.js';
import { type TemplateSettings, templateSettingsSchema } from '#functions/templates/settings.js';
import { type Clock, systemClock } from '#platform/clock.js';
import { kernelSettingsSchema, parseEnv } from '#platform/settings.js';
import type { BackgroundRuns, BlobStore, CredentialVault, EventPublisher, MetricsPort, RateLimiter, SchedulerPort } from '#platform/ports.js';
import { awsPlatformPorts } from './aws-ports.js';
import { type LocalEdgeAdapters, installLocalEdge } from './edge.js';

/** What the local runtime provides for each port; functions where the service starts on first use. */
export interface LocalAdapters extends LocalEdgeAdapters {
  eventBus: EventPublisher;
  scheduler(): SchedulerPort;
  credentialVault: CredentialVault;
  blobStore(): BlobStore;
  backgroundRuns<J, R>(run: (job: J) => Promise<R>): BackgroundRuns<J, R>;
  embedder(settings: DocumentSettings): Embedder;
  scriptRuntime(settings: ScriptSettings): ScriptRuntime;
  runSlots(): RunSlots;
  packageInstaller(settings: ScriptSettings): PackageInstaller;
  scriptPackages(): BlobStore;
  solanaLedger(): Promise<SolanaLedger>;
  platformSigners(): Promise<PlatformSigners>;
  payoutTrigger(run: (ownerId: string, asset: string) => Promise<unknown>): (ownerId: string, asset: string) => Promise<void>;
  templateBuilder(options: TemplateBuilderOptions & { settings: TemplateSettings; sandbox: ScriptSettings['sandbox'] }): TemplateBuilder;
  pagesHost: PagesHost;
  solanaDevTools: SolanaDevTools;
}

/** Local mode's faucet and Solana JSON-RPC endpoint over the embedded bank (localOnly routes, never on AWS). */
export interface SolanaDevTools {
  airdrop(input: {
    address: string;
    asset: 'SOL' | 'USDC';
    amount?: number;
  }): Promise<{ address: string; asset: string; mint: string; amount: number; atomicAmount: string; balance: string }>;
  solanaRpc(call: { id?: string | number | null; method: string; params?: unknown[] }): Promise<unknown>;
}

export interface TemplateBuilderOptions {
  timeoutMs: number;
  /** Locally the builder reports a build's end here; on AWS CodeBuild's state change does. */
  onOutcome: (outcome: BuildOutcome & { logs: string[] }) => Promise<unknown>;
}

const settingsSchemas = {
  kernel: kernelSettingsSchema,
  scripts: scriptSettingsSchema,
  documents: documentSettingsSchema,
  templates: templateSettingsSchema,
  flows: flowSettingsSchema,
  payments: paymentSettingsSchema,
};

/** The kernel's and every area's settings, typed. */
export type PlatformSettings = ReturnType<typeof parsePlatformSettings>;

/** Parsed together, so that one error names every bad variable of the start. */
export const parsePlatformSettings = (env: Record<string, string | undefined>) => parseEnv(settingsSchemas, env);

/** The kernel's ports, which every area's composition may use. */
export interface PlatformPorts {
  eventBus: EventPublisher;
  scheduler: SchedulerPort;
  credentialVault: CredentialVault;
  /** `run` runs one job (a long run, a document's processing): locally in this process, on AWS in the function invoked with it. */
  backgroundRuns<J, R>(run: (job: J) => Promise<R>): BackgroundRuns<J, R>;
  metrics: MetricsPort;
  rateLimiter: RateLimiter;
}

export interface Platform extends PlatformPorts {
  settings: PlatformSettings;
  clock: Clock;
  /** The installed local adapters, from which the area adapter modules take the areas' own ports; undefined on AWS. */
  local: LocalAdapters | undefined;
}

export function createPlatform(adapters: PlatformPorts & { local?: LocalAdapters }, settings: PlatformSettings): Platform {
  return { ...adapters, local: adapters.local, settings, clock: systemClock };
}

/**
 * The kernel's ports over the installed local adapters. The scheduler starts (reading the schedules kept under the
 * data directory, arming their timers) on its first call, not when a composition takes the port.
 */
const localPorts = (local: LocalAdapters): PlatformPorts & { local: LocalAdapters } => ({
  local,
  eventBus: local.eventBus,
  scheduler: {
    put: (schedule) => local.scheduler().put(schedule),
    putOnce: (once) => local.scheduler().putOnce(once),
    remove: (name) => local.scheduler().remove(name),
  },
  credentialVault: local.credentialVault,
  backgroundRuns: (run) => local.backgroundRuns(run),
  metrics: local.metrics,
  rateLimiter: local.rateLimiter(),
});

let local: LocalAdapters | undefined;
let current: Platform | undefined;

/** Locally: the next use of `platform()` builds a new platform over these adapters, with the environment as it is then. */
export function installLocalAdapters(adapters: LocalAdapters): void {
  local = adapters;
  current = undefined;
  installLocalEdge(adapters);
}

/** This start's platform: on AWS built on the first call in the container, locally over the installed adapters. */
export function platform(): Platform {
  if (current) return current;
  const settings = parsePlatformSettings(process.env);
  if (process.env.PLATFORM_MODE === 'local') {
    if (!local) throw new Error('local mode: no local adapters installed (bin/local.ts startPlatform, or the test setup, installs them)');
    current = createPlatform(localPorts(local), settings);
  } else {
    current = createPlatform(awsPlatformPorts(settings.kernel), settings);
  }
  return current;
}

/**
 * `build(platform)` once per platform object (the current one unless given): a running platform keeps what its
 * compositions built, a new one (a local restart) gets its own, with no proxy following the restart.
 */
export function perPlatform<T>(build: (platform: Platform) => T): (of?: Platform) => T {
  const built = new WeakMap<Platform, T>();
  return (of = platform()) => {
    if (!built.has(of)) built.set(of, build(of));
    return built.get(of)!;
  };
}
