// The resources area's facade: what other areas may ask of resources and their installations, typed by the area's own
// records. Calls go through the area's call service, so its access rules, credentials and limits hold for every caller.
// Built from the area's services and stores by its composition; another area's composition hands it to that area's own port.
import type { Caller } from '#platform/caller.js';
import type { CallService } from './call-service.js';
import type { InstallationService } from './installation-service.js';
import type { InstallationStore } from './installation-store.js';
import type { MethodDefinition } from './method-definitions.js';
import type { ResourceService } from './service.js';
import type { ResourceStore } from './store.js';
import type { VersionCache } from './versions.js';

export type { MethodDefinition } from './method-definitions.js';
export { checkParams } from './method-definitions.js';

export interface ResourcesApiDeps {
  calls: CallService;
  installations: InstallationService;
  resourceService: ResourceService;
  resources: ResourceStore;
  installationStore: InstallationStore;
  versions: VersionCache;
}

export type ResourcesApi = ReturnType<typeof createResourcesApi>;

export function createResourcesApi({ calls, installations, resourceService, resources, installationStore, versions }: ResourcesApiDeps) {
  return {
    /** The ResourceCaller port (functions/platform/ports.ts) of scripts and flows. */
    caller: calls,

    /** A paid x402 call: the resource's owner's credentials, no installation needed. */
    callAsOwner: calls.callAsOwner,

    /** What a paid call needs to know about a resource, whoever asks; NOT_FOUND when it does not exist. */
    resourceForCall: (resourceId: string) => resourceService.getForCall(resourceId),

    /** The marketplace's resources as a paid call sees them. */
    listedForCall: () => resourceService.listedForCall(),

    /** Payments records each settled x402 payment here; metrics' `totalRevenue` includes it. */
    recordRevenue: (resourceId: string, amountUsd: number) => resourceService.recordRevenue(resourceId, amountUsd),

    /** The user's installed resources with the methods of the installed version. */
    async installedResources(userId: string): Promise<{ resourceId: string; name: string; methods: MethodDefinition[] }[]> {
      const installed = await installationStore.listByUser(userId);
      return Promise.all(
        installed.map(async (item) => ({
          resourceId: item.resourceId,
          name: item.resourceName,
          methods: (await versions.get(item.resourceId, item.version)).endpoint.methods,
        })),
      );
    },

    /** Method names of one installed resource, by installed name or id; undefined unless exactly one installation matches. */
    async installedMethodNames(userId: string, resource: string): Promise<string[] | undefined> {
      const installed = (await installationStore.listByUser(userId)).filter((item) => item.resourceId === resource || item.resourceName === resource);
      if (installed.length !== 1) return undefined;
      const definition = await resources.getVersion(installed[0]!.resourceId, installed[0]!.version);
      return definition?.endpoint.methods.map((method) => method.name);
    },

    /** Each id's name and whether it is published (installable), `null` names for unknown ids. */
    async resourceAvailability(ids: string[]): Promise<{ id: string; name: string | null; available: boolean }[]> {
      const found = await resources.getMany(ids);
      return ids.map((id) => ({ id, name: found.get(id)?.name ?? null, available: found.get(id)?.status === 'published' }));
    },

    /** The marketplace's published resources matching the query, as its listing shows them. */
    marketplace: (query: { search?: string; category?: string; limit: number }) => resourceService.marketplace({ ...query, offset: 0 }),

    installResource: (caller: Caller, resourceId: string, baseUrl: string) => installations.install(caller, resourceId, baseUrl),

    uninstallResource: (caller: Caller, resourceId: string) => installations.uninstall(caller, resourceId),
  };
}
