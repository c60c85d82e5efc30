// The resources area's facade: what other areas may ask of resources and their installations, typed by the area's own
// records. Calls go through the area's call service, so its access rules, credentials and limits hold for every caller.
import type { Caller } from '#platform/caller.js';
import type { ResourceCaller } from '#platform/ports.js';
import { createInstallationStore } from './installation-store.js';
import type { MethodDefinition } from './method-definitions.js';
import { createResourceStore } from './store.js';
import { createVersionCache } from './versions.js';
import { callService, installationService, resourceService } from '#functions/app/resources/wiring.js';

export type { MethodDefinition } from './method-definitions.js';
export { checkParams } from './method-definitions.js';

export const resourceCaller = (): ResourceCaller => callService();

/** A paid x402 call: the resource's owner's credentials, no installation needed. */
export const callAsOwner: ReturnType<typeof callService>['callAsOwner'] = (request) => callService().callAsOwner(request);

/** What a paid call needs to know about a resource, whoever asks; NOT_FOUND when it does not exist. */
export const resourceForCall = (resourceId: string) => resourceService().getForCall(resourceId);

export const recordRevenue = (resourceId: string, amountUsd: number) => resourceService().recordRevenue(resourceId, amountUsd);

let versions: ReturnType<typeof createVersionCache> | undefined;

/** The user's installed resources with the methods of the installed version. */
export async function installedResources(userId: string): Promise<{ resourceId: string; name: string; methods: MethodDefinition[] }[]> {
  const cache = (versions ??= createVersionCache(createResourceStore()));
  const installed = await createInstallationStore().listByUser(userId);
  return Promise.all(
    installed.map(async (item) => ({
      resourceId: item.resourceId,
      name: item.resourceName,
      methods: (await cache.get(item.resourceId, item.version)).endpoint.methods,
    })),
  );
}

/** Method names of one installed resource, by installed name or id; undefined unless exactly one installation matches. */
export async function installedMethodNames(userId: string, resource: string): Promise<string[] | undefined> {
  const installed = (await createInstallationStore().listByUser(userId)).filter((item) => item.resourceId === resource || item.resourceName === resource);
  if (installed.length !== 1) return undefined;
  const definition = await createResourceStore().getVersion(installed[0]!.resourceId, installed[0]!.version);
  return definition?.endpoint.methods.map((method) => method.name);
}

/** Each id's name and whether it is published (installable), `null` names for unknown ids. */
export async function resourceAvailability(ids: string[]): Promise<{ id: string; name: string | null; available: boolean }[]> {
  const found = await createResourceStore().getMany(ids);
  return ids.map((id) => ({ id, name: found.get(id)?.name ?? null, available: found.get(id)?.status === 'published' }));
}

export const installResource = (caller: Caller, resourceId: string, baseUrl: string) => installationService().install(caller, resourceId, baseUrl);

export const uninstallResource = (caller: Caller, resourceId: string) => installationService().uninstall(caller, resourceId);
