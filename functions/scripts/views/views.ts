// The two shapes of the interface over the same records: REST (semver versions, statuses success/error/timeout,
// successRate in percent) and the SDK operations (integer versions, completed/failed/running, successRate 0-1).
import type { Metrics } from './insights.js';
import { ratingOf } from './marketplace.js';
import {
  type Execution,
  type ExecutionStatus,
  type Installation,
  type LogLine,
  type Script,
  type ScriptVersion,
  type VersionDependencies,
  logTexts,
  withConcurrencyScope,
} from '../model.js';
import type { ExecutionResult } from '../runs/runner.js';
import type { RunStatus } from '../runs/run-record.js';

export const sdkStatus: Record<ExecutionStatus, RunStatus> = {
  queued: 'queued',
  skipped: 'skipped',
  expired: 'expired',
  success: 'completed',
  error: 'failed',
  timeout: 'failed',
  running: 'running',
  waiting: 'waiting',
  cancelled: 'cancelled',
};
/** SDK status filter to the stored statuses it covers. */
export const storedStatuses: Record<'completed' | 'failed' | 'running', ExecutionStatus[]> = {
  completed: ['success'],
  failed: ['error', 'timeout'],
  running: ['running'],
};
/** A page of a durable run's journal on its record, and where the next starts; `[]` for every other run. */
const stepsOf = (execution: Execution) => ({
  steps: execution.steps ?? [],
  ...(execution.stepsNextCursor !== undefined && { stepsNextCursor: execution.stepsNextCursor }),
});

/** The answer of a run still going at the bound (HTTP 202): follow it with getExecution. */
export const runningView = (execution: Pick<Execution, 'executionId' | 'status' | 'queue'>) => ({
  executionId: execution.executionId,
  status: execution.status === 'waiting' || execution.status === 'queued' ? execution.status : ('running' as const),
  ...(execution.queue && { queue: execution.queue }),
});
/** Declared and resolved packages; the field is left out for versions that declare none. */
const packagesOf = (dependencies: VersionDependencies | null | undefined) =>
  dependencies
    ? { dependencies: { declared: dependencies.declared, resolved: dependencies.resolved, lockHash: dependencies.lockHash, sizeBytes: dependencies.sizeBytes } }
    : {};

/**
 * One script version has an integer (the SDK's `version`) and a semver (REST's `version`): every answer naming the
 * active one carries both, so clients label it the same way ("version 3 (1.0.2)").
 */
const activeSemverOf = (script: Script) => (script.activeVersion === null ? null : (script.activeSemver ?? null));
const activeOf = (script: Script) => ({ activeVersion: activeSemverOf(script), activeVersionNumber: script.activeVersion });

export const rest = {
  created: (script: Script, apiKey: string) => ({
    id: script.scriptId,
    name: script.name,
    runtime: script.runtime,
    status: script.status,
    deploymentStatus: script.deploymentStatus,
    createdAt: script.createdAt,
    apiKey,
  }),

  listItem: (script: Script) => ({
    id: script.scriptId,
    name: script.name,
    runtime: script.runtime,
    status: script.status,
    deploymentStatus: script.deploymentStatus,
    ...activeOf(script),
    createdAt: script.createdAt,
    lastExecutedAt: script.lastExecutedAt,
  }),

  script: (script: Script, dependencies?: VersionDependencies | null) => ({
    id: script.scriptId,
    name: script.name,
    description: script.description,
    runtime: script.runtime,
    status: script.status,
    deploymentStatus: script.deploymentStatus,
    ...activeOf(script),
    latestVersion: script.latestSemver,
    latestVersionNumber: script.latestVersion,
    config: withConcurrencyScope(script.config),
    category: script.category,
    tags: script.tags,
    private: script.isPrivate,
    pricing: script.pricing,
    createdAt: script.createdAt,
    updatedAt: script.updatedAt,
    deployedAt: script.deployedAt,
    publishedAt: script.publishedAt,
    lastExecutedAt: script.lastExecutedAt,
    ...packagesOf(dependencies),
  }),

  version: (version: ScriptVersion) => ({
    versionId: version.versionId,
    version: version.semver,
    versionNumber: version.version,
    changelog: version.message,
    createdAt: version.createdAt,
    ...packagesOf(version.dependencies),
  }),

  deployment: (script: Script, version: ScriptVersion) => ({
    deploymentId: script.deploymentId,
    versionId: version.versionId,
    version: version.semver,
    versionNumber: version.version,
    status: 'deployed' as const,
    deployedAt: script.deployedAt,
  }),

  executed: ({ execution, output }: ExecutionResult) => ({
    executionId: execution.executionId,
    result: output,
    duration: execution.duration,
    memoryUsed: execution.memoryUsed,
    cost: execution.cost,
  }),

  execution: (execution: Execution) => ({
    executionId: execution.executionId,
    status: execution.status,
    duration: execution.duration,
    memoryUsed: execution.memoryUsed,
    cost: execution.cost,
    timestamp: execution.createdAt,
    trigger: execution.trigger.type,
    ...(execution.trigger.client !== undefined && { client: execution.trigger.client }),
    ...stepsOf(execution),
  }),

  metrics: (metrics: Metrics) => ({
    totalExecutions: metrics.totalExecutions,
    successRate: Math.round(metrics.successRate * 1000) / 10,
    averageDuration: metrics.averageDuration,
    totalCost: metrics.totalCost,
    executionsToday: metrics.executionsToday,
    lastExecutedAt: metrics.script.lastExecutedAt,
  }),

  marketplaceItem: (script: Script) => ({
    id: script.scriptId,
    name: script.name,
    description: script.description,
    runtime: script.runtime,
    category: script.category,
    pricing: { model: script.pricing?.model ?? 'free', basePrice: script.pricing?.basePrice ?? 0 },
    rating: ratingOf(script),
    installCount: script.installCount,
  }),
};

const sdkBase = (script: Script) => ({
  id: script.scriptId,
  name: script.name,
  description: script.description,
  runtime: script.runtime,
  timeout: script.config.timeout,
  memory: script.config.memory,
  activeVersion: script.activeVersion,
  activeSemver: activeSemverOf(script),
  isPublished: script.status === 'published',
  isPrivate: script.isPrivate,
  status: script.status,
  deploymentStatus: script.deploymentStatus,
});

export const sdk = {
  created: (script: Script, installation: Installation, apiKey: string) => ({
    ...sdkBase(script),
    apiKey,
    installationId: installation.installationId,
    createdAt: script.createdAt,
  }),

  script: (
    script: Script,
    metrics: Pick<Metrics, 'totalExecutions' | 'totalCost' | 'averageDuration' | 'errorRate'>,
    dependencies?: VersionDependencies | null,
  ) => ({
    ...sdkBase(script),
    serverlessFunctionName: script.serverlessFunctionName,
    serverlessFunctionArn: script.serverlessFunctionArn,
    totalExecutions: metrics.totalExecutions,
    totalCost: metrics.totalCost,
    avgDuration: metrics.averageDuration,
    errorRate: metrics.errorRate,
    createdAt: script.createdAt,
    deployedAt: script.deployedAt,
    publishedAt: script.publishedAt,
    lastExecutedAt: script.lastExecutedAt,
    ...packagesOf(dependencies),
  }),

  listItem: (script: Script) => ({
    id: script.scriptId,
    name: script.name,
    description: script.description,
    activeVersion: script.activeVersion,
    activeSemver: activeSemverOf(script),
    isPublished: script.status === 'published',
    status: script.status,
    deploymentStatus: script.deploymentStatus,
    totalExecutions: script.totalExecutions ?? 0,
    createdAt: script.createdAt,
  }),

  version: (version: ScriptVersion, activeVersion: number | null) => ({
    id: version.versionId,
    scriptId: version.scriptId,
    version: version.version,
    semver: version.semver,
    isActive: version.version === activeVersion,
    commitMessage: version.message,
    codeHash: version.codeHash,
    createdAt: version.createdAt,
    deployedAt: version.deployedAt,
    ...packagesOf(version.dependencies),
  }),

  /** Flat: the envelope wraps it once (the interface's table shows it inside `success`/`data`, which is that envelope). */
  deployment: (script: Script, version: ScriptVersion) => ({
    scriptId: script.scriptId,
    version: version.version,
    semver: version.semver,
    serverlessFunctionName: script.serverlessFunctionName,
    serverlessFunctionArn: script.serverlessFunctionArn,
    deployedAt: script.deployedAt,
  }),

  execution: (execution: Execution, logLines: LogLine[], output: unknown = execution.output) => ({
    executionId: execution.executionId,
    scriptId: execution.scriptId,
    status: sdkStatus[execution.status],
    output,
    duration: execution.duration,
    logs: logTexts(logLines),
    logLines,
    error: execution.error,
    createdAt: execution.createdAt,
    ...(execution.parentExecutionId && { parentExecutionId: execution.parentExecutionId, rootExecutionId: execution.rootExecutionId }),
    ...stepsOf(execution),
  }),

  executionItem: (execution: Execution) => ({
    executionId: execution.executionId,
    scriptId: execution.scriptId,
    status: sdkStatus[execution.status],
    duration: execution.duration,
    createdAt: execution.createdAt,
    hasError: execution.error !== null,
    ...stepsOf(execution),
  }),

  metrics: (metrics: Metrics) => ({
    scriptId: metrics.script.scriptId,
    totalExecutions: metrics.totalExecutions,
    totalCost: metrics.totalCost,
    avgDuration: metrics.averageDuration,
    successRate: metrics.successRate,
    errorRate: metrics.errorRate,
    lastExecutedAt: metrics.script.lastExecutedAt,
  }),
};

export const installationView = (installation: Installation) => ({
  installationId: installation.installationId,
  scriptId: installation.scriptId,
  userId: installation.userId,
  status: installation.status,
  installedAt: installation.installedAt,
});

/** One version's code as its owner reads it, with both names of the version and its packages. */
export const versionCodeView = (script: Script, version: ScriptVersion, code: string) => ({
  scriptId: script.scriptId,
  versionId: version.versionId,
  version: version.version,
  semver: version.semver,
  runtime: script.runtime,
  code,
  codeHash: version.codeHash,
  createdAt: version.createdAt,
  ...packagesOf(version.dependencies),
});
