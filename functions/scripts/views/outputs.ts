// Shapes of `data` in the scripts area's answers, for the OpenAPI document (views.ts builds them).
import * as z from 'zod';
import { CostUsd, DurationMs, IsoDate, MemoryMb } from '#platform/schemas.js';
import { concurrencyScopes, triggerTypes } from '../model.js';
import { flowControlFields, queueReasons } from '#platform/flow-control.js';
import { runKinds, runStatuses } from '../runs/run-record.js';

const Nullable = <T extends z.ZodType>(schema: T) => schema.nullable();
const Runtime = z.enum(['nodejs18', 'python3.11']);
const Status = z.enum(['draft', 'published', 'archived']);
const DeploymentStatus = z.enum(['pending', 'deploying', 'deployed', 'failed']);
const ExecError = z.object({ code: z.string(), message: z.string(), line: z.number().optional() });
/** A durable run's step or wait (`[]` for runs of other scripts). */
export const StepView = z.object({
  name: z.string(),
  type: z.enum(['step', 'wait', 'callback', 'event', 'approval', 'invoke', 'map', 'parallel']),
  status: z.enum(['succeeded', 'failed', 'waiting', 'cancelled']),
  startedAt: IsoDate,
  endedAt: Nullable(IsoDate),
  result: z.unknown().optional(),
  error: ExecError.optional(),
  wakeAt: IsoDate.optional().describe('waits: when the timer or the timeout ends the wait'),
  childExecutionId: z.string().optional().describe('invoke: the child run'),
  callbackId: z.string().optional().describe('callback: the id to complete it with'),
  approvalId: z.string().optional().describe('approval: the approval to decide'),
  eventType: z.string().optional().describe('event: the event type that resumes the wait'),
  kept: z.literal(true).optional().describe("reused by a re-run from the earlier run: its times are that run's"),
});
const Steps = z.array(StepView);
const StepsNextCursor = z
  .string()
  .optional()
  .describe("present when the run has more steps than this answer holds: pass it as getExecution's `stepsCursor` for the next page");
const Pricing = z.object({ model: z.string(), basePrice: z.number().optional(), monthlyPrice: z.number().optional(), currency: z.string().optional() });

const Packages = z
  .object({
    declared: z
      .union([z.record(z.string(), z.string()), z.array(z.string())])
      .describe('what the version declared: npm package to semver range, or pip requirements'),
    resolved: z.record(z.string(), z.string()).describe('every installed package with its exact version'),
    lockHash: z.string().describe('sha256 of the lock and the installed files: versions with equal hashes share one installed tree'),
    sizeBytes: z.number().describe('installed bytes, unpacked'),
  })
  .optional()
  .describe('installed packages of the version; absent when it declares none');

const ActiveSemver = Nullable(z.string()).describe('semver of the deployed version; null before the first deploy');
const ActiveNumber = Nullable(z.number()).describe("integer number of the deployed version (the SDK's `activeVersion`); null before the first deploy");
export const RestCreated = z.object({
  id: z.string(),
  name: z.string(),
  runtime: Runtime,
  status: Status,
  deploymentStatus: DeploymentStatus,
  createdAt: IsoDate,
  apiKey: z.string(),
});
const RestListItem = z.object({
  id: z.string(),
  name: z.string(),
  runtime: Runtime,
  status: Status,
  deploymentStatus: DeploymentStatus,
  activeVersion: ActiveSemver,
  activeVersionNumber: ActiveNumber,
  createdAt: IsoDate,
  lastExecutedAt: Nullable(IsoDate),
});
export const RestList = z.object({ scripts: z.array(RestListItem), total: z.number(), limit: z.number(), offset: z.number() });
export const RestScript = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  runtime: Runtime,
  status: Status,
  deploymentStatus: DeploymentStatus,
  activeVersion: ActiveSemver,
  activeVersionNumber: ActiveNumber,
  latestVersion: z.string(),
  latestVersionNumber: z.number(),
  config: z.object({
    timeout: z.number(),
    memory: z.number(),
    maxCostPerExecution: z.number(),
    maxExecutionsPerDay: z.number(),
    allowedResources: z.array(z.string()),
    concurrency: z.object({ limit: z.number(), key: z.string(), scope: z.enum(concurrencyScopes) }).optional(),
    durable: z.boolean().optional(),
    ...flowControlFields,
  }),
  category: Nullable(z.string()),
  tags: z.array(z.string()),
  private: z.boolean(),
  pricing: Nullable(Pricing),
  createdAt: IsoDate,
  updatedAt: IsoDate,
  deployedAt: Nullable(IsoDate),
  publishedAt: Nullable(IsoDate),
  lastExecutedAt: Nullable(IsoDate),
  dependencies: Packages,
});
export const RestVersion = z.object({
  versionId: z.string(),
  version: z.string(),
  versionNumber: z.number().describe("the same version's integer (the SDK's `version`)"),
  changelog: Nullable(z.string()),
  createdAt: IsoDate,
  dependencies: Packages,
});
export const RestVersions = z.object({ versions: z.array(RestVersion), count: z.number() });
export const RestDeployment = z.object({
  deploymentId: z.string(),
  versionId: z.string(),
  version: z.string(),
  versionNumber: z.number(),
  status: z.literal('deployed'),
  deployedAt: IsoDate,
});
export const RestExecuted = z.object({ executionId: z.string(), result: z.unknown(), duration: DurationMs, memoryUsed: MemoryMb, cost: CostUsd });
/** A log line with the invocation that printed it and the durable step it was printed in. */
const LogLines = z
  .array(z.object({ text: z.string(), invocation: z.number().int(), step: z.string().optional() }))
  .describe("the run's log lines in order, each with its invocation (1 for the first, 2 after the first resume, ...) and its step, if printed in one");
const RestExecution = z.object({
  executionId: z.string(),
  status: z.enum(['queued', 'running', 'success', 'error', 'timeout', 'waiting', 'cancelled', 'skipped', 'expired']),
  duration: DurationMs,
  memoryUsed: MemoryMb,
  cost: CostUsd,
  timestamp: IsoDate,
  trigger: z.string(),
  client: z.string().optional().describe('mcp runs: the name the MCP client gave'),
  steps: Steps,
  stepsNextCursor: StepsNextCursor,
});
export const RestExecutions = z.object({ executions: z.array(RestExecution), total: z.number(), limit: z.number(), offset: z.number() });
export const RestExecutionDetail = RestExecution.extend({ result: z.unknown(), logs: z.array(z.string()), logLines: LogLines, error: Nullable(ExecError) });
export const RestMetrics = z.object({
  totalExecutions: z.number(),
  successRate: z.number(),
  averageDuration: DurationMs,
  totalCost: CostUsd,
  executionsToday: z.number(),
  lastExecutedAt: Nullable(IsoDate),
});
export const RestPublished = z.object({ id: z.string(), status: z.literal('published'), publishedAt: IsoDate });
export const RestUnpublished = z.object({ id: z.string(), status: z.literal('draft') });
const RestMarketplaceItem = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  runtime: Runtime,
  category: Nullable(z.string()),
  pricing: z.object({ model: z.string(), basePrice: z.number() }),
  rating: z.number(),
  installCount: z.number(),
});
export const RestMarketplace = z.object({ scripts: z.array(RestMarketplaceItem), total: z.number(), limit: z.number(), offset: z.number() });

const SdkBase = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  runtime: Runtime,
  timeout: z.number(),
  memory: z.number(),
  activeVersion: ActiveNumber,
  activeSemver: ActiveSemver,
  isPublished: z.boolean(),
  isPrivate: z.boolean(),
  status: Status,
  deploymentStatus: DeploymentStatus,
});
/** A durable script's determinism warnings (clock and random reads outside steps), as lintScript words them; absent when none. */
const CodeWarnings = z.array(z.object({ message: z.string(), line: z.number(), suggestion: z.string() })).optional();
export const SdkCreated = SdkBase.extend({ apiKey: z.string(), installationId: z.string(), createdAt: IsoDate, warnings: CodeWarnings });
export const SdkScript = SdkBase.extend({
  serverlessFunctionName: Nullable(z.string()),
  serverlessFunctionArn: Nullable(z.string()),
  totalExecutions: z.number(),
  totalCost: CostUsd,
  avgDuration: DurationMs,
  errorRate: z.number(),
  createdAt: IsoDate,
  deployedAt: Nullable(IsoDate),
  publishedAt: Nullable(IsoDate),
  lastExecutedAt: Nullable(IsoDate),
  dependencies: Packages,
});
const SdkListItem = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  activeVersion: ActiveNumber,
  activeSemver: ActiveSemver,
  isPublished: z.boolean(),
  status: Status,
  deploymentStatus: DeploymentStatus,
  totalExecutions: z.number(),
  createdAt: IsoDate,
});
export const SdkList = z.object({ count: z.number(), scripts: z.array(SdkListItem) });
export const SdkMarketplace = z.object({ total: z.number(), limit: z.number(), offset: z.number(), scripts: z.array(SdkListItem) });
export const SdkDeleted = z.object({
  deleted: z.literal(true),
  scriptId: z.string(),
  hardDeleted: z.boolean(),
  installationsRemoved: z.number(),
  preservedInstallations: z.number(),
});
export const SdkVersion = z.object({
  id: z.string(),
  scriptId: z.string(),
  version: z.number(),
  semver: z.string().describe("the same version's semver (REST's `version`)"),
  isActive: z.boolean(),
  commitMessage: Nullable(z.string()),
  codeHash: z.string(),
  createdAt: IsoDate,
  deployedAt: Nullable(IsoDate),
  dependencies: Packages,
});
export const SdkVersions = z.object({ count: z.number(), versions: z.array(SdkVersion) });
export const SdkDeployment = z.object({
  scriptId: z.string(),
  version: z.number(),
  semver: z.string(),
  serverlessFunctionName: z.string(),
  serverlessFunctionArn: z.string(),
  deployedAt: IsoDate,
  warnings: CodeWarnings,
});
export const SdkExecution = z.object({
  executionId: z.string(),
  scriptId: z.string(),
  status: z.enum(['queued', 'completed', 'failed', 'running', 'waiting', 'cancelled', 'skipped', 'expired']),
  output: z.unknown(),
  duration: DurationMs,
  logs: z.array(z.string()),
  logLines: LogLines,
  error: Nullable(ExecError),
  createdAt: IsoDate,
  parentExecutionId: z.string().optional().describe('a child run (`context.invoke`): the run that started it'),
  rootExecutionId: z.string().optional().describe('a child run: the top-level run of its tree'),
  steps: Steps,
  stepsNextCursor: StepsNextCursor,
});
const SdkExecutionItem = z.object({
  executionId: z.string(),
  scriptId: z.string(),
  status: z.enum(['queued', 'completed', 'failed', 'running', 'waiting', 'cancelled', 'skipped', 'expired']),
  duration: DurationMs,
  createdAt: IsoDate,
  hasError: z.boolean(),
  steps: Steps,
  stepsNextCursor: StepsNextCursor,
});
export const LiveLogs = z.object({
  executionId: z.string(),
  status: z.enum(['queued', 'running', 'waiting', 'success', 'error', 'timeout', 'cancelled', 'skipped', 'expired']),
  lines: z.array(z.string()).describe('log lines after `after`, in the order printed, over every invocation of the run'),
  entries: LogLines.describe('the same lines with their invocation and step'),
  next: z.number().int().describe('pass as `after` to read on'),
  done: z.boolean().describe('the run has ended: no more lines will come'),
});
export const SdkExecutions = z.object({ scriptId: z.string(), count: z.number(), executions: z.array(SdkExecutionItem) });
export const SdkPublished = z.object({ scriptId: z.string(), isPublished: z.boolean(), status: Status, publishedAt: IsoDate });
export const SdkUnpublished = z.object({ scriptId: z.string(), unpublished: z.literal(true) });
export const SdkMetrics = z.object({
  scriptId: z.string(),
  totalExecutions: z.number(),
  totalCost: CostUsd,
  avgDuration: DurationMs,
  successRate: z.number(),
  errorRate: z.number(),
  lastExecutedAt: Nullable(IsoDate),
});
export const FlowScript = z.object({
  code: z.string(),
  version: z.number(),
  scriptId: z.string(),
  scriptName: z.string(),
  description: z.string(),
  isOwned: z.boolean(),
});
export const FlowScriptModified = z.object({ copied: z.boolean(), scriptId: z.string(), versionId: z.string(), version: z.number() });
export const LintResult = z.object({
  valid: z.boolean(),
  issueCount: z.number(),
  issues: z.array(z.object({ severity: z.enum(['error', 'warning']), message: z.string(), line: z.number(), suggestion: z.string() })),
  callAdapterCallsCount: z.number(),
  mirraSDKCallsCount: z.number(),
  suggestedDependencies: z
    .union([z.record(z.string(), z.string()), z.array(z.string())])
    .describe('packages the code imports that are not declared: a dependencies value to give createScript or createVersion')
    .optional(),
});
const Registry = z.object({
  ecosystem: z.enum(['npm', 'pypi']),
  url: z.string(),
  hasToken: z.boolean().describe('a token is stored (sealed; it is never returned)'),
  updatedAt: IsoDate,
});
export const RegistrySet = Registry;
export const RegistryList = z.object({ registries: z.array(Registry) });
export const RegistryCleared = z.object({ ecosystem: z.enum(['npm', 'pypi']), cleared: z.boolean() });
export const ScriptInstallation = z.object({
  installationId: z.string(),
  scriptId: z.string(),
  userId: z.string(),
  status: z.literal('active'),
  installedAt: IsoDate,
});
export const ScriptCode = z.object({
  scriptId: z.string(),
  versionId: z.string(),
  version: z.number().describe('the version number (SDK)'),
  semver: z.string().describe('its semantic version (REST)'),
  runtime: Runtime,
  code: z.string(),
  codeHash: z.string().describe('sha256 of the code'),
  createdAt: IsoDate,
  dependencies: Packages,
});

export const RunOperated = z.object({
  executionId: z.string(),
  status: z.enum(['running', 'cancelled']).describe('a re-run starts as running; a cancelled run stays cancelled'),
});
export const Replayed = z.object({ executionIds: z.array(z.string()).describe('the new executions, one per replayed run') });

const RunStatus = z
  .enum(runStatuses)
  .describe(
    'queued, running, waiting, completed, failed, cancelled, timeout, skipped (its rate limit or singleton) or expired (queueTtl); the REST script routes say success/error for completed/failed',
  );
const RunOrigin = z
  .object({ executionId: z.string(), fromStep: z.string().optional() })
  .optional()
  .describe('set on a run made by rerun or replay: the run it was made from, and the step a rerun started at');
/** What a run's record and a list item share, of a script run or a flow run. */
const RunFields = {
  executionId: z.string(),
  kind: z.enum(runKinds).describe("script: a run of a script (a flow's script run too, as that flow run's child); flow: a run of a flow"),
  scriptId: Nullable(z.string()),
  flowId: Nullable(z.string()),
  parentExecutionId: Nullable(z.string()).describe('the run that started this one (a flow run for its script run); null at the top'),
  rootExecutionId: z.string().describe("the top of the run's tree: its own id for a top-level run"),
  status: RunStatus,
  error: Nullable(z.object({ code: z.string(), message: z.string() })),
  cost: CostUsd,
  duration: DurationMs,
  startedAt: IsoDate,
  endedAt: Nullable(IsoDate),
  createdAt: IsoDate,
  origin: RunOrigin,
  queue: z
    .object({ reason: z.enum(queueReasons), key: z.string().optional(), until: IsoDate.optional() })
    .optional()
    .describe('only while queued: why the run waits (concurrency, throttle, debounce, batch), for which key value, and until when at the earliest'),
  reason: z.enum(['rateLimit', 'singleton', 'queueTtl']).optional().describe('only when skipped or expired: why the run did not run'),
};
export const RunRecord = z.object({
  ...RunFields,
  trigger: z.object({ type: z.string(), source: Nullable(z.string()), event: Nullable(z.string()) }),
  steps: Steps,
  stepsNextCursor: StepsNextCursor,
  logs: z.array(z.string()).describe("every invocation's lines, in order"),
  logLines: z.array(z.object({ text: z.string(), invocation: z.number().int(), step: z.string().optional() })),
  output: z.unknown().describe("the script's output, or the flow run's result"),
});
export const RunList = z.object({
  executions: z.array(
    z.object({
      ...RunFields,
      trigger: z.enum(triggerTypes),
      source: Nullable(z.string()).describe('the subscription, schedule, webhook or flow that started the run'),
    }),
  ),
  total: z.number().int(),
  limit: z.number().int(),
  offset: z.number().int(),
});
