// The resources area's composition: its services with their production dependencies (stores, the version cache,
// access rules, and the platform root's vault, rate limiter and bus), and the area's facade over them. Handlers get
// the services here, other areas' composition modules the facade; services never import this file.
import type { ReviewTarget } from '#functions/reviews/api.js';
import { outboundRequest } from '#platform/outbound.js';
import { type Platform, perPlatform } from '#functions/app/platform.js';
import { createAccess } from '#functions/resources/access.js';
import { type ResourcesApi, createResourcesApi } from '#functions/resources/api.js';
import { type CallService, createCallService } from '#functions/resources/call-service.js';
import { dynamoCatalogStamps } from '#platform/catalog-stamps.js';
import { type InstallationService, createInstallationService } from '#functions/resources/installation-service.js';
import { createInstallationStore } from '#functions/resources/installation-store.js';
import { type ResourceService, createResourceService } from '#functions/resources/service.js';
import { createResourceStore } from '#functions/resources/store.js';
import { createVersionCache } from '#functions/resources/versions.js';
import { createWebhookService } from '#functions/resources/webhook-service.js';

/** The stores, version cache and access rules each service of the area reads through. */
function storesAndAccess() {
  const resources = createResourceStore();
  const installations = createInstallationStore();
  return { resources, installations, versions: createVersionCache(resources), access: createAccess({ resources, installations }) };
}

export const callService = perPlatform(
  ({ credentialVault, rateLimiter, clock }: Platform): CallService =>
    createCallService({ ...storesAndAccess(), vault: credentialVault, limiter: rateLimiter, clock, send: outboundRequest }),
);

export const installationService = perPlatform(
  ({ credentialVault, clock }: Platform): InstallationService =>
    createInstallationService({ ...storesAndAccess(), vault: credentialVault, clock, catalog: dynamoCatalogStamps }),
);

export const resourceService = perPlatform(({ clock }: Platform): ResourceService => createResourceService({ ...storesAndAccess(), clock }));

export const resourcesApi = perPlatform((platform: Platform): ResourcesApi => {
  const { resources, installations, versions } = storesAndAccess();
  return createResourcesApi({
    calls: callService(platform),
    installations: installationService(platform),
    resourceService: resourceService(platform),
    resources,
    installationStore: installations,
    versions,
  });
});

export const webhookService = perPlatform(({ credentialVault, eventBus, clock }: Platform) =>
  createWebhookService({
    installations: createInstallationStore(),
    versions: createVersionCache(createResourceStore()),
    vault: credentialVault,
    publisher: eventBus,
    clock,
  }),
);

/** The resources side of the shared reviews module: ratings live on the resource item, installers may review. */
export const resourceReviewTarget = perPlatform((): ReviewTarget => {
  const [resources, installations] = [createResourceStore(), createInstallationStore()];
  const access = createAccess({ resources, installations });
  return {
    itemType: 'resource',
    ratingUpdate: resources.ratingUpdate,
    visibleOwner: async (userId, resourceId) => (await access.visible(userId, resourceId)).ownerId,
    isInstaller: async (userId, resourceId) => (await installations.get(userId, resourceId)) !== undefined,
  };
});
