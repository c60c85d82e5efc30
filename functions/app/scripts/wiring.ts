// Production implementations of the scripts area's ports, on top of the accounts, resources and flows areas, the
// area's services with their production dependencies, and the resource-call function's service with its signing key.
import { enabledSubscriptionCount } from '#functions/events/api.js';
import { repointFlow, scriptOfFlow } from '#functions/flows/api.js';
import type { ReviewTarget } from '#functions/reviews/api.js';
import { scriptGrantKey } from '#adapters/script-grant-key.js';
import { tmpdir } from 'node:os';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { accountsApi } from '#functions/app/accounts/wiring.js';
import { resourcesApi } from '#functions/app/resources/wiring.js';
import { type Platform, perPlatform } from '#functions/app/platform.js';
import { packageInstaller, pythonCodeFacts, runSlots, scriptPackageStore, scriptRuntime } from '#functions/app/script-adapters.js';
import { type Authoring, createAuthoring } from '#functions/scripts/authoring/authoring.js';
import { type DependencyService, createDependencyService } from '#functions/scripts/packages/dependencies.js';
import { createNpmInstallerFunction } from '#functions/scripts/packages/installer-function.js';
import { type Deployer, createDeployer } from '#functions/scripts/runs/deployer.js';
import { createExecutionStore } from '#functions/scripts/runs/execution-store.js';
import { createGatherStore } from '#functions/scripts/runs/gather-store.js';
import { type ScriptGathering, createGathering } from '#functions/scripts/runs/gathering.js';
import { settleParentRun } from '#functions/app/run-tree.js';
import { type RunStore, createRunStore } from '#functions/scripts/runs/run-store.js';
import { type Runs, createRuns } from '#functions/scripts/runs/runs.js';
import { type Insights, createInsights } from '#functions/scripts/views/insights.js';
import { type LongRuns, createLongRuns } from '#functions/scripts/runs/long-runs.js';
import type { BudgetSource, KeyIssuer, ResourceCatalog } from '#functions/scripts/ports.js';
import { type RegistryService, createRegistryService, createRegistryStore } from '#functions/scripts/packages/registries.js';
import { createScriptReviewTarget } from '#functions/scripts/reviews.js';
import { type ScriptsApi, createScriptsApi } from '#functions/scripts/api.js';
import { createRunTallies } from '#functions/scripts/runs/run-tallies.js';
import { type ScriptRunner, createScriptRunner } from '#functions/scripts/runs/runner.js';
import { type FlowControlGate, createFlowControl } from '#functions/scripts/runs/flow-control.js';
import { type ScriptAccess, createScriptAccess } from '#functions/scripts/runs/script-access.js';
import { createScriptResourceCalls } from '#functions/scripts/runs/script-resource-calls.js';
import { dynamoCatalogStamps } from '#platform/catalog-stamps.js';
import { type ScriptService, createScriptService } from '#functions/scripts/service.js';
import { type ScriptStore, createScriptStore } from '#functions/scripts/store.js';
import { createTreeRefStore } from '#functions/scripts/packages/tree-ref-store.js';
import { type VersionCode, createVersionCode } from '#functions/scripts/authoring/version-code.js';
import type { Resumer } from '#functions/durable/api.js';
import { type RunOperations, createRunOperations } from '#functions/scripts/durable/operations.js';
import { createDurableScriptRuns, createScriptResumer } from '#functions/scripts/durable/script-runs.js';
import { type ChildRunPorts, childRunEnded } from '#functions/scripts/durable/child-runs.js';
import type { DurableRunHooks } from '#functions/scripts/runs/runner.js';
import { durableCallbacks, durableEngine, durableJournal } from '#functions/app/durable-engine.js';

function accountKeys(platform: Platform): KeyIssuer {
  const accounts = accountsApi(platform);
  return {
    issue: accounts.issueKey,
    async revoke(userId, keyId) {
      try {
        await accounts.revokeKey(userId, keyId);
      } catch (error) {
        // Revoked (or deleted) by the user already: nothing left to do.
        if (!(error instanceof NotFoundError || error instanceof ConflictError)) throw error;
      }
    },
  };
}

const accountBudgets = (platform: Platform): BudgetSource => ({ monthlyBudgetUsd: accountsApi(platform).monthlyBudgetUsd });

const installedResources = (platform: Platform): ResourceCatalog => ({ methodsOf: resourcesApi(platform).installedMethodNames });

export const scriptRegistries = perPlatform(
  ({ credentialVault, clock }: Platform): RegistryService => createRegistryService({ store: createRegistryStore(), vault: () => credentialVault, clock }),
);

export const scriptDependencies = perPlatform(
  (platform: Platform): DependencyService =>
    createDependencyService({
      installer: () => packageInstaller(platform),
      blobs: () => scriptPackageStore(platform),
      refs: createTreeRefStore,
      runtime: () => scriptRuntime(platform),
      registryOf: (userId, ecosystem) => scriptRegistries(platform).registryOf(userId, ecosystem),
      clock: platform.clock,
    }),
);

/** The npm installer function's work (AWS): each install in a fresh directory under /tmp, the tree to the script-packages bucket. */
export const npmInstall = perPlatform((platform: Platform) =>
  createNpmInstallerFunction({
    blobs: () => scriptPackageStore(platform),
    workDir: tmpdir(),
    timeoutMs: (platform.settings.scripts.packageInstallTimeoutSeconds ?? 20) * 1000,
  }),
);

/** Durable runs' step results past a journal item's share, in the same blob store as versions' packages (`journal/`). */
const journalResults = (platform: Platform) => () => scriptPackageStore(platform);

/** Versions' code, in the same blob store as their packages. */
export const scriptCode = perPlatform((platform: Platform): VersionCode => createVersionCode(() => scriptPackageStore(platform)));

/** The resource-call function of Lambda-deployed scripts. */
export const scriptResourceCalls = perPlatform((platform: Platform) =>
  createScriptResourceCalls({
    key: () => scriptGrantKey(platform.settings.scripts.lambda.grantSecretArn),
    tallies: createRunTallies(),
    caller: () => resourcesApi(platform).caller,
    clock: platform.clock,
    checkpoint: (grant, method, params) =>
      durableEngine(platform).checkpoint({ executionId: grant.executionId, userId: grant.userId, scriptId: grant.scriptId }, method, params),
  }),
);

const deployerOf = (platform: Platform, store: ScriptStore): Deployer =>
  createDeployer({
    store,
    runtime: () => scriptRuntime(platform),
    packages: () => scriptDependencies(platform),
    code: scriptCode(platform),
    clock: platform.clock,
    python: platform.settings.scripts.python,
  });

export const scriptService = perPlatform((platform: Platform): ScriptService => {
  const store = createScriptStore();
  return createScriptService({
    store,
    deployer: deployerOf(platform, store),
    runtime: () => scriptRuntime(platform),
    keys: accountKeys(platform),
    subscriptions: { enabledCount: enabledSubscriptionCount },
    clock: platform.clock,
    packages: () => scriptDependencies(platform),
    code: scriptCode(platform),
    python: platform.settings.scripts.python,
    catalog: dynamoCatalogStamps,
  });
});

/** The execution entry for every trigger: `scriptRunner().execute({scriptId, userId, data, trigger})`. */
export const scriptRunner = perPlatform((platform: Platform): ScriptRunner => {
  const store = createScriptStore();
  return createScriptRunner({
    store,
    executions: createExecutionStore(journalResults(platform)),
    deployer: deployerOf(platform, store),
    packages: () => scriptDependencies(platform),
    code: scriptCode(platform),
    runtime: () => scriptRuntime(platform),
    slots: () => runSlots(platform),
    limiter: platform.rateLimiter,
    budgets: accountBudgets(platform),
    resources: () => resourcesApi(platform).caller,
    clock: platform.clock,
    metrics: platform.metrics,
    settings: platform.settings.scripts,
    durable: durableScriptRuns(platform),
    flowControl: () => flowControlGate(platform),
    gathering: scriptGathering(platform),
  });
});

/** Flow control of script runs: its counters, its queue's one-shots, and the background start of a run it lets go. */
export const flowControlGate = perPlatform(
  (platform: Platform): FlowControlGate =>
    createFlowControl({
      executions: createExecutionStore(journalResults(platform)),
      oneShots: () => platform.scheduler,
      clock: platform.clock,
      start: (admitted) => scriptLongRuns(platform).startChild(admitted),
      async cancel(userId, executionId) {
        await runOperations(platform).cancel(userId, executionId);
        return true;
      },
    }),
);

/** Debounce and batch windows of scripts' triggers, closed by the scheduler's one-shots. */
export const scriptGathering = perPlatform(
  (platform: Platform): ScriptGathering =>
    createGathering({ store: createGatherStore(), oneShots: platform.scheduler, bus: platform.eventBus, clock: platform.clock }),
);

/** A window's close (its one-shot, or a full batch): its run starts through ordinary admission, in this invocation. */
export async function closeGatherWindow(platform: Platform, close: { executionId: string; window: string; userId: string }): Promise<void> {
  const gathering = scriptGathering(platform);
  const released = await gathering.closeDue(close.executionId, close.window, close.userId);
  if (!released) return;
  const executions = createExecutionStore(journalResults(platform));
  await gathering.release(released, { ...scriptRunner(platform), releaseDailyRun: executions.releaseDailyRun });
}

/** Who may run a script: its owner or an installer (script-access.ts). */
export const scriptAccess = (): ScriptAccess => createScriptAccess(createScriptStore());

/** How the runner meets the durable engine: the journal in, checkpoints out, suspended or finished. */
export const durableScriptRuns = perPlatform(
  (platform: Platform): DurableRunHooks =>
    createDurableScriptRuns({
      engine: durableEngine(platform),
      bus: platform.eventBus,
      clock: platform.clock,
      childEnded: childRunEnded(durableEngine(platform)),
      parentEnded: (execution) => settleParentRun(platform, scriptsApi(platform).flowRunRecords, execution),
    }),
);

/** The durable engine's resumer of script runs (functions/app/durable-wakes.ts). */
export const scriptResumer = perPlatform(
  (platform: Platform): Resumer =>
    createScriptResumer({
      engine: durableEngine(platform),
      executions: createExecutionStore(journalResults(platform)),
      runner: scriptRunner(platform),
      clock: platform.clock,
    }),
);

/** Cancel, re-run, replay and callbacks of script runs. */
export const runOperations = perPlatform(
  (platform: Platform): RunOperations =>
    createRunOperations({
      engine: durableEngine(platform),
      journal: durableJournal(platform),
      callbacks: durableCallbacks(platform),
      executions: createExecutionStore(journalResults(platform)),
      runner: scriptRunner(platform),
      access: scriptAccess(),
      ended: durableScriptRuns(platform).ended,
      clock: platform.clock,
    }),
);

/** What the engine's `invoke` wait kind uses of the scripts area (functions/app/durable-engine.ts). */
export const childRunPorts = perPlatform(
  (platform: Platform): ChildRunPorts => ({
    runner: scriptRunner(platform),
    start: (admitted) => scriptLongRuns(platform).startChild(admitted),
    executions: createExecutionStore(journalResults(platform)),
    scripts: createScriptStore(),
    cancel: (userId, executionId) => runOperations(platform).cancel(userId, executionId),
  }),
);

/** The one store of every run, of scripts and of flows (the flows write theirs through the facade). */
export const runStore = perPlatform((platform: Platform): RunStore => createRunStore(journalResults(platform)));

/** Every run read from the one record; `migrate` brings an owner's runs kept before it in (functions/app/run-operations.ts gives the flows'). */
export const runsReader = (platform: Platform, migrate: (userId: string) => Promise<void>): Runs =>
  createRuns({ records: runStore(platform), executions: createExecutionStore(journalResults(platform)), clock: platform.clock, migrate });

export const scriptLongRuns = perPlatform(
  (platform: Platform): LongRuns =>
    createLongRuns({
      runner: scriptRunner(platform),
      executions: createExecutionStore(journalResults(platform)),
      background: platform.backgroundRuns,
      boundMs: platform.settings.kernel.runWaitMs,
      clock: platform.clock,
    }),
);

export const scriptAuthoring = perPlatform(
  (platform: Platform): Authoring =>
    createAuthoring({
      flows: { scriptOf: scriptOfFlow, repoint: repointFlow },
      scripts: scriptService(platform),
      store: createScriptStore(),
      code: scriptCode(platform),
      catalog: installedResources(platform),
      pythonFacts: pythonCodeFacts(platform),
      python: platform.settings.scripts.python,
    }),
);

export const scriptInsights = perPlatform(
  (platform: Platform): Insights =>
    createInsights({
      scripts: scriptService(platform),
      store: createScriptStore(),
      executions: createExecutionStore(journalResults(platform)),
      clock: platform.clock,
    }),
);

export const scriptReviewTarget = perPlatform(
  (platform: Platform): ReviewTarget => createScriptReviewTarget({ scripts: scriptService(platform), store: createScriptStore() }),
);

export const scriptsApi = perPlatform(
  (platform: Platform): ScriptsApi =>
    createScriptsApi({
      runner: scriptRunner(platform),
      longRuns: scriptLongRuns(platform),
      access: scriptAccess(),
      service: scriptService(platform),
      engine: durableEngine(platform),
      operations: runOperations(platform),
      store: createScriptStore(),
      executions: createExecutionStore(journalResults(platform)),
      records: runStore(platform),
      clock: platform.clock,
      flowControl: flowControlGate(platform),
    }),
);
