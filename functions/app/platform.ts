// The platform root (the composition above the kernel): the local adapters the runtime installs, and the settings
// parsed per start. Each port's choice of adapter for this process's mode is a module of its own beside this one
// (event-publisher.ts, schedulers.ts, credential-vault.ts, background-runs.ts, and the document, script, payment and
// template adapters), so that a Lambda bundle holds only the adapters its area uses: esbuild puts every module a
// bundle's imports reach into it, used or not. On AWS the bundler fixes the mode (lib/bundles.ts defines
// `process.env.PLATFORM_MODE` as "aws"), so every local branch folds away and no local adapter reaches a Lambda
// bundle. Locally the runtime (bin/local.ts, or a test's setup file) installs the local adapters
// (functions/adapters/local/adapters.ts) once per process; the services they start are stopped and forgotten with
// the platform, so a platform restarted in the same process gets fresh ones. The HTTP kit's own ports (metrics, rate
// limiter) live in ./edge.ts, which every bundle loads.
import type { Embedder } from '#functions/documents/ports.js';
import { flowSettingsSchema } from '#functions/flows/settings.js';
import { type DocumentSettings, documentSettingsSchema } from '#functions/documents/settings.js';
import type { SolanaLedger } from '#functions/payments/ledger.js';
import type { PlatformSigners } from '#functions/payments/signers.js';
import type { PackageInstaller } from '#functions/scripts/packages/dependency-port.js';
import type { RunSlots } from '#functions/scripts/runs/run-slots.js';
import type { ScriptRuntime } from '#functions/scripts/runs/runtime-port.js';
import { type ScriptSettings, scriptSettingsSchema } from '#functions/scripts/settings.js';
import type { BuildOutcome } from '#functions/templates/model.js';
import type { PagesHost, TemplateBuilder } from '#functions/templates/ports.js';
import { type TemplateSettings, templateSettingsSchema } from '#functions/templates/settings.js';
import { parseEnv } from '#platform/settings.js';
import type { BackgroundRuns, BlobStore, CredentialVault, EventPublisher, SchedulerPort } from '#platform/ports.js';
import { type LocalEdgeAdapters, installLocalEdge } from './edge.js';

export { metrics, rateLimiter } from './edge.js';

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
  templateBuilder(options: TemplateBuilderOptions & { settings: () => TemplateSettings }): TemplateBuilder;
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
  timeoutMs: () => number;
  /** Locally the builder reports a build's end here; on AWS CodeBuild's state change does. */
  onOutcome: (outcome: BuildOutcome & { logs: string[] }) => Promise<unknown>;
}

/** The areas' settings, parsed from the environment together. */
export interface PlatformSettings {
  scripts: ScriptSettings;
  documents: DocumentSettings;
}

let parsed: PlatformSettings | undefined;

/**
 * The settings of this start: parsed on first use (once per Lambda container on AWS), parsed afresh after each local
 * start installs the adapters, since the runtime and tests set the environment before they start a platform.
 */
export const platformSettings = (): PlatformSettings =>
  (parsed ??= parseEnv({ scripts: scriptSettingsSchema, documents: documentSettingsSchema }, process.env));

/** Settings parsed at each use, for the areas whose settings change while the platform runs (docs/architecture.md). */
export const liveSettings = () => parseEnv({ templates: templateSettingsSchema, flows: flowSettingsSchema }, process.env);
/** One area's live settings: a use parses only its own area's variables. */
export const liveTemplateSettings = () => parseEnv({ templates: templateSettingsSchema }, process.env).templates;
export const liveFlowSettings = () => parseEnv({ flows: flowSettingsSchema }, process.env).flows;

let local: LocalAdapters | undefined;

export function installLocalAdapters(adapters: LocalAdapters): void {
  local = adapters;
  parsed = undefined;
  installLocalEdge(adapters);
}

/** The installed local adapters, for the port modules beside this one. */
export function localAdapters(): LocalAdapters {
  if (!local) throw new Error('local mode: no local adapters installed (bin/local.ts startPlatform, or the test setup, installs them)');
  return local;
}
