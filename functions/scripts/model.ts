// The scripts area's records as stored, and the published script limits.
import type { ExecutionError, StepView } from '../durable/api.js';
import type { RunLineage } from './runs/run-record.js';
import type { FlowControl, NotRunReason, QueuePlace } from '#platform/flow-control.js';
import type { BatchOptions, DebounceOptions } from '../platform/gathering.js';

export type { ExecutionError, StepView };

export const runtimeLabels = ['nodejs18', 'python3.11'] as const;
export type RuntimeLabel = (typeof runtimeLabels)[number];

/** `{"<package>": "<semver range>"}` for node, requirement strings (`requests==2.32.3`) for python. */
export type DeclaredDependencies = Record<string, string> | string[];

/** A version's packages as locked: what was declared and what got installed (dependencies.ts). */
export interface VersionDependencies {
  declared: DeclaredDependencies;
  /** Every installed package with its exact version. */
  resolved: Record<string, string>;
  /** sha256 of the runtime and the lock: equal hashes share one installed tree. */
  lockHash: string;
  /** Installed bytes, unpacked. */
  sizeBytes: number;
}

/** Code size 50 MB including dependencies. */
export const maxPackageBytes = 50 * 1024 * 1024;

export const pricingModels = ['free', 'pay-per-execution', 'subscription'] as const;
export const marketplaceCategories = ['notification', 'data_sync', 'automation', 'utility', 'reporting'] as const;

export const limits = {
  timeoutSeconds: { min: 1, max: 300, default: 30 },
  memoryMb: { min: 128, max: 3008, default: 128 },
  maxCostPerExecution: { default: 1.0 },
  maxExecutionsPerDay: { default: 100 },
  concurrentExecutionsPerScript: 10,
  manualExecutionsPerMinute: 100,
} as const;

/** Whose runs share a concurrency key value: each run user's own (the default), or every user's. */
export const concurrencyScopes = ['user', 'global'] as const;
export type ConcurrencyScope = (typeof concurrencyScopes)[number];

/** A script's limits and how its runs start; flow control (FlowControl) beside `concurrency`. */
export interface ScriptConfig extends FlowControl {
  timeout: number;
  memory: number;
  maxCostPerExecution: number;
  maxExecutionsPerDay: number;
  allowedResources: string[];
  /**
   * At most `limit` runs at once per value of `key` (a dotted path into `event.data`); runs past it wait their turn.
   * A value counts per run user unless `scope` is `global` (records written before scopes existed have none: `user`).
   */
  concurrency?: { limit: number; key: string; scope?: ConcurrencyScope };
  /** Triggers gather before a run starts: the last of a quiet period (debounce), or many in one run (batch). */
  debounce?: DebounceOptions;
  batch?: BatchOptions;
  /** Runs may checkpoint steps and wait (functions/durable/). */
  durable?: boolean;
  /** JSON Schema of the run's `data`: what an MCP tool of the script declares and checks its arguments against. */
  inputSchema?: Record<string, unknown>;
}

/** The config with its concurrency's scope spelled out: configs stored before scopes existed count per user. */
export const withConcurrencyScope = ({
  concurrency,
  ...config
}: ScriptConfig): Omit<ScriptConfig, 'concurrency'> & { concurrency?: Required<ScriptConfig>['concurrency'] & { scope: ConcurrencyScope } } => ({
  ...config,
  ...(concurrency && { concurrency: { ...concurrency, scope: concurrency.scope ?? 'user' } }),
});

export interface Pricing {
  model: (typeof pricingModels)[number];
  basePrice?: number;
  monthlyPrice?: number;
  currency?: string;
}

export type ScriptStatus = 'draft' | 'published' | 'archived';
export type DeploymentStatus = 'pending' | 'deploying' | 'deployed' | 'failed';

export interface Script {
  scriptId: string;
  ownerId: string;
  name: string;
  description: string;
  runtime: RuntimeLabel;
  config: ScriptConfig;
  category: string | null;
  tags: string[];
  isPrivate: boolean;
  pricing: Pricing | null;
  status: ScriptStatus;
  deploymentStatus: DeploymentStatus;
  /** Set while a deploy runs, so two deploys of one script do not interleave. */
  deployingSince?: string;
  activeVersion: number | null;
  /** The active version's semver, for REST's shape. */
  activeSemver?: string;
  latestVersion: number;
  latestSemver: string;
  deploymentId: string | null;
  serverlessFunctionName: string | null;
  serverlessFunctionArn: string | null;
  /** The `scripts:execute` key handed out at creation, revoked with the script. */
  apiKeyId: string | null;
  /** `public` while the script is in the marketplace: the partition of the sparse byListing index. */
  listed?: 'public';
  installCount: number;
  /** Maintained by the shared reviews module (functions/reviews/reviews.ts). */
  ratingSum: number;
  reviewCount: number;
  staffPick: boolean;
  system: boolean;
  totalExecutions: number;
  successCount: number;
  totalDuration: number;
  totalCost: number;
  /** Versions with at least one successful run: publishing needs one (the interface publish requirements). */
  testedVersions?: Set<number>;
  createdAt: string;
  updatedAt: string;
  deployedAt: string | null;
  publishedAt: string | null;
  lastExecutedAt: string | null;
}

/** Where a version runs once deployed: the Lambda version number, or the local staging key. */
export interface Artifact {
  functionVersion: string;
  /** timeout and memory the artifact was built with; another config needs another artifact. */
  configKey: string;
}

export interface ScriptVersion {
  scriptId: string;
  version: number;
  versionId: string;
  semver: string;
  /** sha256 of the code, which is a blob (version-code.ts), not part of the item. */
  codeHash: string;
  /** The code's UTF-8 bytes; absent on items written before code moved to the blob store. */
  codeBytes?: number;
  /** Only on items written before code moved to the blob store; read through version-code.ts. */
  code?: string;
  /** `commitMessage` in the SDK, `changelog` in REST. */
  message: string | null;
  createdAt: string;
  deployedAt: string | null;
  artifact?: Artifact;
  /** Installed packages (dependencies.ts); absent when the version declares none. */
  dependencies?: VersionDependencies;
}

/**
 * Stored with REST's names; the SDK shows success as completed and error/timeout as failed. A durable run is
 * `waiting` between invocations and `cancelled` once stopped by its user.
 */
/** `queued` waits for its flow control (throttle, debounce, batch); `skipped` and `expired` never ran. */
export type ExecutionStatus = 'queued' | 'running' | 'success' | 'error' | 'timeout' | 'waiting' | 'cancelled' | 'skipped' | 'expired';

export const triggerTypes = ['manual', 'event', 'schedule', 'webhook', 'flow', 'mcp'] as const;
/** `invoke`: a child run another run started (`context.invoke`); not a trigger a caller may name. */
export type TriggerType = (typeof triggerTypes)[number] | 'invoke';

export interface Trigger {
  type: TriggerType;
  source?: string;
  event?: unknown;
  /** An `mcp` run: the name the MCP client gave in its clientInfo. */
  client?: string;
}

export interface Execution extends RunLineage {
  executionId: string;
  /** Records written before kinds have none: every one of them is a script run. */
  kind?: 'script';
  scriptId: string;
  /** Who the run belongs to: the owner, or a user who installed the script. */
  userId: string;
  /** GSI partition of a user's runs of one script: `<scriptId>#<userId>`. */
  scriptUser: string;
  version: number;
  trigger: Trigger;
  status: ExecutionStatus;
  noOp?: boolean;
  output: unknown;
  /** Output over the stored size is kept as a prefix of its JSON text. */
  outputTruncated?: boolean;
  /** The output is its JSON text: nested past maxInputDepth (stored-run.ts), or, in records written before `outputJson`, holding `__proto__` keys. */
  outputAsJsonText?: boolean;
  error: ExecutionError | null;
  duration: number;
  memoryUsed: number;
  cost: number;
  resourceCalls: number;
  createdAt: string;
  finishedAt: string | null;
  /** Set when the background job of a long run took it (functions/scripts/runs/long-runs.ts). */
  claimedAt?: string;
  /** While running: when the run must have ended (its timeout and a margin); past it, it is read as timed out. */
  runningUntil?: string;
  expiresAt: number;
  /** A run of a durable script: its steps are in the journal (functions/durable/journal.ts). */
  durable?: true;
  /** Read from the journal, never stored on the item. */
  steps?: StepView[];
  /** Where the next page of a durable run's steps starts (getExecution's `stepsCursor`), when the record holds a page. */
  stepsNextCursor?: string;
  /** The run's data as JSON text (bounded), kept so it can be re-run or replayed. */
  inputJson?: string;
  /** A child run (`context.invoke`): the run that started it, and the top of its tree. */
  parentExecutionId?: string;
  rootExecutionId?: string;
  /** A child run: the parent's wait its end settles, and how deep it nests (1 for a top-level run's child). */
  parentWait?: string;
  depth?: number;
  /** What the run's stored log holds so far, over all its invocations (stored-run.ts bounds it). */
  logBytes?: number;
  /** While `queued`: why it waits, for which key value, until when (flow-control.ts). */
  queue?: QueuePlace;
  /** A `skipped` or `expired` run: why it did not run. */
  reason?: NotRunReason;
  /** A run queued by its throttle: its queue (the `byQueue` index's partition) and its place in it. */
  queueKey?: string;
  queueOrder?: string;
  /** A queued run: its admission (the runner's AdmittedRun) as JSON, what starting it needs. */
  admittedJson?: string;
}

/** The text of log lines, as a run's `logs` shows them. */
export const logTexts = (lines: LogLine[]): string[] => lines.map((line) => line.text);

/** A line of a run's log: the invocation that printed it (1 for the first, 2 after the first resume, ...) and the durable step it was printed in. */
export interface LogLine {
  text: string;
  invocation: number;
  step?: string;
}

/** What a list of runs across scripts shows of a run (and what `settledRun` reads): a few fields of its record. */
export const runSummaryFields = [
  'executionId',
  'scriptId',
  'trigger',
  'status',
  'error',
  'duration',
  'cost',
  'createdAt',
  'finishedAt',
  'runningUntil',
  'durable',
  'queue',
  'reason',
] as const satisfies readonly (keyof Execution)[];

export type RunSummary = Pick<Execution, (typeof runSummaryFields)[number]>;

/**
 * How a run reads: one still `running` past `runningUntil` lost its process (a Lambda killed, a restart) and timed out.
 * Not a durable run: its invocation's watchdog continues it in a new one, which then writes a new `runningUntil`.
 */
export function settledRun<Run extends RunSummary>(execution: Run, nowIso: string): Run {
  if (execution.status !== 'running' || execution.durable || !execution.runningUntil || nowIso <= execution.runningUntil) return execution;
  return {
    ...execution,
    status: 'timeout',
    error: { code: 'TIMEOUT', message: 'the run stopped without recording its end' },
    finishedAt: execution.runningUntil,
  };
}

export interface Installation {
  scriptId: string;
  userId: string;
  installationId: string;
  status: 'active';
  installedAt: string;
  /** Template customization values, reaching the script as `context.customization`. */
  customization: Record<string, string | number | boolean>;
}
