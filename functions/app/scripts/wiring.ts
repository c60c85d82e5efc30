// Production implementations of the scripts area's ports, on top of the accounts, resources and flows areas, the
// area's services with their production dependencies, and the resource-call function's service with its signing key.
import { findUsers, issueKey, monthlyBudgetUsd, revokeKey } from '#functions/accounts/api.js';
import { enabledSubscriptionCount } from '#functions/events/api.js';
import { repointFlow, scriptOfFlow } from '#functions/flows/api.js';
import { installedMethodNames, resourceCaller } from '#functions/resources/api.js';
import type { ReviewTarget } from '#functions/reviews/api.js';
import { scriptGrantKey } from '#adapters/script-grant-key.js';
import { tmpdir } from 'node:os';
import { systemClock } from '#platform/clock.js';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { settings } from '#platform/settings.js';
import { backgroundRuns } from '#functions/app/background-runs.js';
import { credentialVault } from '#functions/app/credential-vault.js';
import { eventPublisher } from '#functions/app/event-publisher.js';
import { liveScheduler } from '#functions/app/schedulers.js';
import { metrics, platformSettings, rateLimiter } from '#functions/app/platform.js';
import { packageInstaller, pythonCodeFacts, runSlots, scriptPackageStore, scriptRuntime } from '#functions/app/script-adapters.js';
import { type Authoring, createAuthoring } from '#functions/scripts/authoring/authoring.js';
import { type DependencyService, createDependencyService } from '#functions/scripts/packages/dependencies.js';
import { createNpmInstallerFunction } from '#functions/scripts/packages/installer-function.js';
import { type Deployer, createDeployer } from '#functions/scripts/runs/deployer.js';
import { createExecutionStore } from '#functions/scripts/runs/execution-store.js';
import { type Insights, createInsights } from '#functions/scripts/views/insights.js';
import { type LongRuns, createLongRuns } from '#functions/scripts/runs/long-runs.js';
import type { BudgetSource, KeyIssuer, ResourceCatalog } from '#functions/scripts/ports.js';
import { type RegistryService, createRegistryService, createRegistryStore } from '#functions/scripts/packages/registries.js';
import { createScriptReviewTarget } from '#functions/scripts/reviews.js';
import { createRunTallies } from '#functions/scripts/runs/run-tallies.js';
import { type ScriptRunner, createScriptRunner } from '#functions/scripts/runs/runner.js';
import { type ScriptAccess, createScriptAccess } from '#functions/scripts/runs/script-access.js';
import { createScriptResourceCalls } from '#functions/scripts/runs/script-resource-calls.js';
import { type ScriptService, createScriptService } from '#functions/scripts/service.js';
import { type ScriptStore, createScriptStore } from '#functions/scripts/store.js';
import { createTreeRefStore } from '#functions/scripts/packages/tree-ref-store.js';
import { type VersionCode, createVersionCode } from '#functions/scripts/authoring/version-code.js';
import { type DurableCallbacks, registerCallbacks } from '#functions/scripts/durable/callbacks.js';
import { type DurableEngine, createDurableEngine } from '#functions/scripts/durable/engine.js';
import { createJournal } from '#functions/scripts/durable/journal.js';
import { type RunOperations, createRunOperations } from '#functions/scripts/durable/operations.js';
import { createDurableScriptRuns } from '#functions/scripts/durable/script-runs.js';
import type { DurableRunHooks } from '#functions/scripts/runs/runner.js';
import { registerRunWaitKinds } from '#functions/app/run-wait-kinds.js';

export const accountKeys: KeyIssuer = {
  issue: issueKey,
  async revoke(userId, keyId) {
    try {
      await revokeKey(userId, keyId);
    } catch (error) {
      // Revoked (or deleted) by the user already: nothing left to do.
      if (!(error instanceof NotFoundError || error instanceof ConflictError)) throw error;
    }
  },
};

export const accountBudgets = (): BudgetSource => ({ monthlyBudgetUsd });

export const installedResources = (): ResourceCatalog => ({ methodsOf: installedMethodNames });

let registries: RegistryService | undefined;
export const scriptRegistries = (): RegistryService =>
  (registries ??= createRegistryService({ store: createRegistryStore(), vault: credentialVault, clock: systemClock }));

let dependencies: DependencyService | undefined;
export const scriptDependencies = (): DependencyService =>
  (dependencies ??= createDependencyService({
    installer: packageInstaller,
    blobs: scriptPackageStore,
    refs: createTreeRefStore,
    runtime: scriptRuntime,
    registryOf: (userId, ecosystem) => scriptRegistries().registryOf(userId, ecosystem),
    clock: systemClock,
  }));

let npmInstaller: ReturnType<typeof createNpmInstallerFunction> | undefined;
/** The npm installer function's work (AWS): each install in a fresh directory under /tmp, the tree to the script-packages bucket. */
export const npmInstall = () =>
  (npmInstaller ??= createNpmInstallerFunction({
    blobs: scriptPackageStore,
    workDir: tmpdir(),
    timeoutMs: (platformSettings().scripts.packageInstallTimeoutSeconds ?? 20) * 1000,
  }));

/** Versions' code, in the same blob store as their packages. */
export const scriptCode: VersionCode = createVersionCode(scriptPackageStore);

let resourceCalls: ReturnType<typeof createScriptResourceCalls> | undefined;
/** The resource-call function of Lambda-deployed scripts. */
export const scriptResourceCalls = () =>
  (resourceCalls ??= createScriptResourceCalls({
    key: scriptGrantKey,
    tallies: createRunTallies(),
    caller: resourceCaller,
    clock: systemClock,
    checkpoint: (grant, method, params) =>
      durableEngine().checkpoint({ executionId: grant.executionId, userId: grant.userId, scriptId: grant.scriptId }, method, params),
  }));

const deployerOf = (store: ScriptStore): Deployer =>
  createDeployer({ store, runtime: scriptRuntime, packages: scriptDependencies, code: scriptCode, clock: systemClock });

let service: ScriptService | undefined;
export const scriptService = (): ScriptService => {
  if (!service) {
    const store = createScriptStore();
    service = createScriptService({
      store,
      deployer: deployerOf(store),
      runtime: scriptRuntime,
      keys: accountKeys,
      subscriptions: { enabledCount: enabledSubscriptionCount },
      clock: systemClock,
      packages: scriptDependencies,
      code: scriptCode,
    });
  }
  return service;
};

let runner: ScriptRunner | undefined;
/** The execution entry for every trigger: `scriptRunner().execute({scriptId, userId, data, trigger})`. */
export const scriptRunner = (): ScriptRunner => {
  if (!runner) {
    const store = createScriptStore();
    runner = createScriptRunner({
      store,
      executions: createExecutionStore(),
      deployer: deployerOf(store),
      packages: scriptDependencies,
      code: scriptCode,
      runtime: scriptRuntime,
      slots: runSlots,
      limiter: rateLimiter,
      budgets: accountBudgets(),
      resources: resourceCaller,
      clock: systemClock,
      metrics,
      settings: () => platformSettings().scripts,
      durable: durableScriptRuns,
    });
  }
  return runner;
};

/** Who may run a script: its owner or an installer (script-access.ts). */
export const scriptAccess = (): ScriptAccess => createScriptAccess(createScriptStore());

let durable: { engine: DurableEngine; callbacks: DurableCallbacks; hooks: DurableRunHooks; operations: RunOperations } | undefined;
/** The durable-run engine with its built-in wait kinds, the script runs' hooks and the operations on runs. */
const durableParts = () => {
  if (!durable) {
    const journal = createJournal();
    const bus = { publish: (event: Parameters<ReturnType<typeof eventPublisher>['publish']>[0]) => eventPublisher().publish(event) };
    const engine = createDurableEngine({
      journal,
      oneShots: liveScheduler,
      bus,
      clock: systemClock,
    });
    const callbacks = registerCallbacks(engine, { journal, baseUrl: () => settings.callbackBaseUrl });
    const scripts = createScriptStore();
    registerRunWaitKinds(engine, {
      users: { findUsers },
      events: bus,
      clock: systemClock,
      scriptOwner: async (scriptId) => (await scripts.get(scriptId))?.ownerId,
      consoleUrl: () => settings.callbackBaseUrl,
    });
    const executions = createExecutionStore();
    const hooks = createDurableScriptRuns({ engine, executions, runner: scriptRunner, bus, clock: systemClock });
    const operations = createRunOperations({
      engine,
      journal,
      callbacks,
      executions,
      runner: scriptRunner,
      access: scriptAccess(),
      ended: hooks.ended,
      clock: systemClock,
    });
    durable = { engine, callbacks, hooks, operations };
  }
  return durable;
};
/** The engine, for wait kinds and in-process durable runs of other modules (`registerWaitKind`, `resolveWait`). */
export const durableEngine = (): DurableEngine => durableParts().engine;
export const durableCallbacks = (): DurableCallbacks => durableParts().callbacks;
export const durableScriptRuns = (): DurableRunHooks => durableParts().hooks;
export const runOperations = (): RunOperations => durableParts().operations;

let longRuns: LongRuns | undefined;
export const scriptLongRuns = (): LongRuns =>
  (longRuns ??= createLongRuns({
    runner: scriptRunner(),
    executions: createExecutionStore(),
    background: backgroundRuns,
    boundMs: () => settings.runWaitMs,
    clock: systemClock,
  }));

let authoring: Authoring | undefined;
export const scriptAuthoring = (): Authoring =>
  (authoring ??= createAuthoring({
    flows: { scriptOf: scriptOfFlow, repoint: repointFlow },
    scripts: scriptService(),
    store: createScriptStore(),
    code: scriptCode,
    catalog: installedResources(),
    pythonFacts: pythonCodeFacts,
  }));

let insights: Insights | undefined;
export const scriptInsights = (): Insights =>
  (insights ??= createInsights({ scripts: scriptService(), store: createScriptStore(), executions: createExecutionStore(), clock: systemClock }));

let reviewTarget: ReviewTarget | undefined;
export const scriptReviewTarget = (): ReviewTarget => (reviewTarget ??= createScriptReviewTarget({ scripts: scriptService(), store: createScriptStore() }));
