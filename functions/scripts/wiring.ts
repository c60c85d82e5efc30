// Production implementations of the scripts area's ports, on top of the accounts, resources and flows areas, the
// area's services with their production dependencies, and the resource-call function's service with its signing key.
import { createAccountStore } from '#functions/accounts/store.js';
import { defaultMonthlyBudgetUsd } from '#functions/accounts/service.js';
import { accountService } from '#functions/accounts/wiring.js';
import { createInstallationStore } from '#functions/resources/installation-store.js';
import { callService, resourceCaller } from '#functions/resources/wiring.js';
import { flowScripts } from '#functions/flows/script-link.js';
import type { ReviewTarget } from '#functions/reviews/reviews.js';
import { createResourceStore } from '#functions/resources/store.js';
import { scriptGrantKey } from '#adapters/script-grant-key.js';
import { tmpdir } from 'node:os';
import { systemClock } from '#platform/clock.js';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { settings } from '#platform/settings.js';
import {
  backgroundRuns,
  credentialVault,
  eventPublisher,
  oneShotScheduler,
  metrics,
  packageInstaller,
  platformSettings,
  pythonCodeFacts,
  rateLimiter,
  scriptPackageStore,
  scriptRuntime,
} from '#functions/app/platform.js';
import { type Authoring, createAuthoring } from './authoring/authoring.js';
import { type DependencyService, createDependencyService } from './packages/dependencies.js';
import { createNpmInstallerFunction } from './packages/installer-function.js';
import { type Deployer, createDeployer } from './runs/deployer.js';
import { createExecutionStore } from './runs/execution-store.js';
import { type Insights, createInsights } from './views/insights.js';
import { type LongRuns, createLongRuns } from './runs/long-runs.js';
import type { BudgetSource, KeyIssuer, ResourceCatalog } from './ports.js';
import { type RegistryService, createRegistryService, createRegistryStore } from './packages/registries.js';
import { createScriptReviewTarget } from './reviews.js';
import { createRunTallies } from './runs/run-tallies.js';
import { type ScriptRunner, createScriptRunner } from './runs/runner.js';
import { createScriptResourceCalls } from './runs/script-resource-calls.js';
import { type ScriptService, createScriptService } from './service.js';
import { type ScriptStore, createScriptStore } from './store.js';
import { createTreeRefStore } from './packages/tree-ref-store.js';
import { registerRunWaitKinds } from '#functions/app/run-wait-kinds.js';
import { type DurableCallbacks, registerCallbacks } from './durable/callbacks.js';
import { type DurableEngine, createDurableEngine } from './durable/engine.js';
import { createJournal } from './durable/journal.js';
import { type RunOperations, createRunOperations } from './durable/operations.js';
import { createDurableScriptRuns } from './durable/script-runs.js';
import type { DurableRunHooks } from './runs/runner.js';
import { type VersionCode, createVersionCode } from './authoring/version-code.js';

export const accountKeys: KeyIssuer = {
  issue: (userId, name, scopes) => accountService().issueKey(userId, { name, scopes }),
  async revoke(userId, keyId) {
    try {
      await accountService().revokeKey(userId, keyId);
    } catch (error) {
      // Revoked (or deleted) by the user already: nothing left to do.
      if (!(error instanceof NotFoundError || error instanceof ConflictError)) throw error;
    }
  },
};

export const accountBudgets = (): BudgetSource => {
  const accounts = createAccountStore();
  return { monthlyBudgetUsd: async (userId) => (await accounts.getUser(userId))?.monthlyBudgetUsd ?? defaultMonthlyBudgetUsd };
};

export const installedResources = (): ResourceCatalog => {
  const installations = createInstallationStore();
  const resources = createResourceStore();
  return {
    async methodsOf(userId, resource) {
      const installed = (await installations.listByUser(userId)).filter((item) => item.resourceId === resource || item.resourceName === resource);
      if (installed.length !== 1) return undefined;
      const definition = await resources.getVersion(installed[0]!.resourceId, installed[0]!.version);
      return definition?.endpoint.methods.map((method) => method.name);
    },
  };
};

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
    caller: callService,
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

let durable: { engine: DurableEngine; callbacks: DurableCallbacks; hooks: DurableRunHooks; operations: RunOperations } | undefined;
/** The durable-run engine with its built-in wait kinds, the script runs' hooks and the operations on runs. */
const durableParts = () => {
  if (!durable) {
    const journal = createJournal();
    const bus = { publish: (event: Parameters<ReturnType<typeof eventPublisher>['publish']>[0]) => eventPublisher().publish(event) };
    const engine = createDurableEngine({
      journal,
      oneShots: { putOnce: (once) => oneShotScheduler().putOnce(once), cancel: (name) => oneShotScheduler().cancel(name) },
      bus,
      clock: systemClock,
    });
    const callbacks = registerCallbacks(engine, { journal, baseUrl: () => settings.callbackBaseUrl });
    const scripts = createScriptStore();
    registerRunWaitKinds(engine, {
      users: { findUsers: (names) => accountService().findUsers(names) },
      events: bus,
      clock: systemClock,
      scriptOwner: async (scriptId) => (await scripts.get(scriptId))?.ownerId,
      consoleUrl: () => settings.callbackBaseUrl,
    });
    const executions = createExecutionStore();
    const hooks = createDurableScriptRuns({ engine, executions, runner: scriptRunner, bus, clock: systemClock });
    const operations = createRunOperations({ engine, journal, callbacks, executions, runner: scriptRunner, clock: systemClock });
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
    flows: flowScripts(),
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
