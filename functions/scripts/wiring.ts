// Production implementations of the scripts area's ports, on top of the accounts and resources areas, and the
// resource-call function's service with its signing key.
import { createAccountStore } from '#functions/accounts/store.js';
import { defaultMonthlyBudgetUsd } from '#functions/accounts/service.js';
import { accountService } from '#functions/accounts/wiring.js';
import { createInstallationStore } from '#functions/resources/installation-store.js';
import { callService } from '#functions/resources/wiring.js';
import { createResourceStore } from '#functions/resources/store.js';
import { scriptGrantKey } from '#adapters/script-grant-key.js';
import { systemClock } from '#platform/clock.js';
import { ConflictError, NotFoundError } from '#platform/errors.js';
import { credentialVault, packageInstaller, scriptPackageStore } from '#platform/wiring.js';
import { type DependencyService, createDependencyService } from './dependencies.js';
import type { BudgetSource, KeyIssuer, ResourceCatalog } from './ports.js';
import { type RegistryService, createRegistryService, createRegistryStore } from './registries.js';
import { createRunTallies } from './run-tallies.js';
import { createScriptResourceCalls } from './script-resource-calls.js';

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
    registryOf: (userId, ecosystem) => scriptRegistries().registryOf(userId, ecosystem),
  }));
let resourceCalls: ReturnType<typeof createScriptResourceCalls> | undefined;
/** The resource-call function of Lambda-deployed scripts. */
export const scriptResourceCalls = () =>
  (resourceCalls ??= createScriptResourceCalls({ key: scriptGrantKey, tallies: createRunTallies(), caller: callService, clock: systemClock }));
