// The platform root (the composition above the kernel): for each port, the adapter of this process's mode. On AWS the bundler fixes the mode
// (lib/bundles.ts defines `process.env.PLATFORM_MODE` as "aws"), so every local branch below folds away
// and no local adapter reaches a Lambda bundle. Locally the runtime (bin/local.ts, or a test's setup file) installs
// the local adapters (functions/adapters/local/adapters.ts) once per process; the services they start are stopped
// and forgotten with the platform, so a platform restarted in the same process gets fresh ones. The HTTP kit's own
// ports (metrics, rate limiter) live in ./edge.ts, which every bundle loads.
import type { Embedder, GraphVectorStore } from '#functions/documents/ports.js';
import { flowSettingsSchema } from '#functions/flows/settings.js';
import { type DocumentSettings, documentSettingsSchema } from '#functions/documents/settings.js';
import type { SolanaLedger } from '#functions/payments/ledger.js';
import type { PlatformSigners } from '#functions/payments/signers.js';
import { paymentSettings } from '#functions/payments/settings.js';
import type { PackageInstaller } from '#functions/scripts/packages/dependency-port.js';
import type { ScriptRuntime } from '#functions/scripts/runs/runtime-port.js';
import { type ScriptSettings, scriptSettingsSchema } from '#functions/scripts/settings.js';
import type { BuildOutcome } from '#functions/templates/model.js';
import type { PagesHost, TemplateBuilder } from '#functions/templates/ports.js';
import { type TemplateSettings, templateSettingsSchema } from '#functions/templates/settings.js';
import { createBedrockEmbedder } from '#adapters/aws/bedrock-embedder.js';
import { createCodeBuildTemplateBuilder } from '#adapters/aws/codebuild-template-builder.js';
import { kmsCredentialVault } from '#adapters/aws/credential-vault.js';
import { eventBridgePublisher } from '#adapters/aws/event-bus.js';
import { createLambdaBackgroundRuns } from '#adapters/aws/lambda-self-invoke.js';
import { cloudFrontPagesHost } from '#adapters/aws/pages-host.js';
import { lambdaPayoutTrigger } from '#adapters/aws/payout-trigger.js';
import { createS3BlobStore } from '#adapters/aws/s3-blob-store.js';
import { createS3VectorsStore } from '#adapters/aws/s3-vectors-store.js';
import { eventBridgeScheduler } from '#adapters/aws/scheduler.js';
import { lambdaScriptRuntime } from '#adapters/aws/script-functions.js';
import { createLeaseRunSlots } from '#functions/scripts/runs/run-leases.js';
import type { RunSlots } from '#functions/scripts/runs/run-slots.js';
import { lambdaPackageInstaller } from '#adapters/aws/package-installer.js';
import { lambdaPythonFacts } from '#adapters/aws/python-facts.js';
import { pythonFacts } from '#functions/scripts/authoring/python.js';
import { withGrantedTables } from '#platform/dynamo.js';
import { envNames } from '#platform/env-names.js';
import { routeTables } from '#platform/route.js';
import { parseEnv, readEnv, requiredEnv } from '#platform/settings.js';
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

function localAdapters(): LocalAdapters {
  if (!local) throw new Error('local mode: no local adapters installed (bin/local.ts startPlatform, or the test setup, installs them)');
  return local;
}

export const eventPublisher = (): EventPublisher =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().eventBus : eventBridgePublisher(readEnv(envNames.eventBusName));

export const scheduler = (): SchedulerPort => (process.env.PLATFORM_MODE === 'local' ? localAdapters().scheduler() : eventBridgeScheduler);

/** Resolves the scheduler on each call: services built once keep it, and the local one restarts with the platform. */
export const liveScheduler: SchedulerPort = {
  put: (schedule) => scheduler().put(schedule),
  putOnce: (once) => scheduler().putOnce(once),
  remove: (name) => scheduler().remove(name),
};

export const credentialVault = (): CredentialVault => (process.env.PLATFORM_MODE === 'local' ? localAdapters().credentialVault : kmsCredentialVault);

export const documentBlobStore = (): BlobStore =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().blobStore() : createS3BlobStore({}, readEnv(envNames.documentsBucket));

/**
 * Where graphs too large for one Lambda keep their vectors: S3 Vectors on AWS, for the functions granted its index
 * (lib/documents.ts). Locally none: one long-lived process loads any graph.
 */
export const graphVectorStore = (): GraphVectorStore | undefined =>
  process.env.PLATFORM_MODE !== 'local' && readEnv(envNames.documentVectorIndexArn)
    ? createS3VectorsStore({}, { indexArn: readEnv(envNames.documentVectorIndexArn) })
    : undefined;

/**
 * `run` runs one job (a long run, a document's processing): locally in the background of this process, on AWS in the
 * function invoked with it (its handler wrapped in withBackgroundRuns).
 */
export const backgroundRuns = <J, R>(run: (job: J) => Promise<R>): BackgroundRuns<J, R> =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().backgroundRuns(run) : createLambdaBackgroundRuns(run, {}, readEnv(envNames.lambdaFunctionName));

let bedrockEmbedder: Embedder | undefined;
/** One embedder per process: the local model loads once, lazily, on the first text. */
export const sharedEmbedder = (): Embedder =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().embedder(platformSettings().documents) : (bedrockEmbedder ??= createBedrockEmbedder());

/** Reads Python code with Python's `ast`: this machine's python3 locally, the stack's Python function on AWS. */
// Async so that a missing PYTHON_LINT_FUNCTION rejects, as the call it stands for does.
export const pythonCodeFacts = async <T>(code: string): Promise<T | undefined> =>
  process.env.PLATFORM_MODE === 'local' ? pythonFacts<T>(code) : lambdaPythonFacts<T>(code, requiredEnv(envNames.pythonLintFunction, 'pythonLint'));

export const scriptRuntime = (): ScriptRuntime =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().scriptRuntime(platformSettings().scripts) : lambdaScriptRuntime();

let leaseRunSlots: RunSlots | undefined;
/** Slots of script runs: in memory locally (one process runs them all), leases in DynamoDB on AWS. */
export const runSlots = (): RunSlots => (process.env.PLATFORM_MODE === 'local' ? localAdapters().runSlots() : (leaseRunSlots ??= createLeaseRunSlots()));

export const packageInstaller = (): PackageInstaller =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().packageInstaller(platformSettings().scripts) : lambdaPackageInstaller;

/** Installed dependency trees of script versions, one zip per lock hash. */
export const scriptPackageStore = (): BlobStore =>
  process.env.PLATFORM_MODE === 'local'
    ? localAdapters().scriptPackages()
    : createS3BlobStore({}, readEnv(envNames.scriptPackagesBucket), envNames.scriptPackagesBucket);

let remoteLedger: { key: string; ledger: SolanaLedger } | undefined;
export async function solanaLedger(): Promise<SolanaLedger> {
  if (process.env.PLATFORM_MODE === 'local') return localAdapters().solanaLedger();
  const { network, rpcUrl } = paymentSettings;
  const key = `${network} ${rpcUrl}`;
  if (remoteLedger?.key !== key) {
    // Loaded on first use: the Solana client weighs on the cold start of every function that never pays.
    const [{ rpcLedger }, { platformWalletAddress }] = await Promise.all([
      import('#adapters/aws/solana-ledger.js'),
      import('#adapters/aws/platform-wallet.js'),
    ]);
    remoteLedger = { key, ledger: rpcLedger({ rpcUrl, network, platformWallet: platformWalletAddress, feePayer: feePayerAddress }) };
  }
  return remoteLedger.ledger;
}

export const templateBuilder = (options: TemplateBuilderOptions): TemplateBuilder =>
  process.env.PLATFORM_MODE === 'local'
    ? localAdapters().templateBuilder({ ...options, settings: liveTemplateSettings })
    : createCodeBuildTemplateBuilder(liveTemplateSettings().codeBuild);

export const templatePagesHost = (): PagesHost =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().pagesHost : cloudFrontPagesHost(liveTemplateSettings().pages);

/** The fee payer's address: from the stack's context when given, else from its secret. */
async function feePayerAddress(): Promise<string> {
  const { feePayerAddress: address, feePayerSecretArn } = paymentSettings;
  if (address) return address;
  if (!feePayerSecretArn) throw new Error('FEE_PAYER_ADDRESS and FEE_PAYER_SECRET_ARN are unset: give the stack the feePayerAddress context');
  const { walletKey } = await import('#adapters/aws/solana-signers.js');
  return (await walletKey(feePayerSecretArn)).address;
}

/** The keys that co-sign reference-client payments (fee payer) and send payouts (settlement account). */
export async function platformSigners(): Promise<PlatformSigners> {
  if (process.env.PLATFORM_MODE === 'local') return localAdapters().platformSigners();
  const { secretSigners } = await import('#adapters/aws/solana-signers.js');
  return secretSigners({ feePayer: () => paymentSettings.feePayerSecretArn, settlement: () => paymentSettings.platformWalletSecretArn });
}

/**
 * On AWS the payout function runs with its own grants; locally its run in this process gets the same tables. Its
 * spec is loaded there only: a static import would bring the payments schemas into every bundle of the root.
 */
export const payoutTrigger = (run: (ownerId: string, asset: string) => Promise<unknown>): ((ownerId: string, asset: string) => Promise<void>) =>
  process.env.PLATFORM_MODE === 'local'
    ? localAdapters().payoutTrigger(async (ownerId, asset) => {
        const { payoutRunnerFunction } = await import('#functions/payments/routes.js');
        return withGrantedTables(payoutRunnerFunction.name, Object.keys(routeTables(payoutRunnerFunction)), () => run(ownerId, asset));
      })
    : lambdaPayoutTrigger();

export function solanaDevTools(): SolanaDevTools {
  if (process.env.PLATFORM_MODE !== 'local') throw new Error('the faucet and the Solana RPC endpoint exist in local mode only');
  return localAdapters().solanaDevTools;
}
