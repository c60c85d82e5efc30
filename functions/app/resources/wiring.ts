// The resources area's composition: its services with their production dependencies (stores, the version cache,
// access rules, and the platform root's vault, rate limiter and bus). Handlers and other areas' composition modules
// get the services here; services never import this file.
import type { ReviewTarget } from '#functions/reviews/api.js';
import { systemClock } from '#platform/clock.js';
import { outboundRequest } from '#platform/outbound.js';
import type { ResourceCaller } from '#platform/ports.js';
import { credentialVault } from '#functions/app/credential-vault.js';
import { eventPublisher } from '#functions/app/event-publisher.js';
import { rateLimiter } from '#functions/app/platform.js';
import { createAccess } from '#functions/resources/access.js';
import { type CallService, createCallService } from '#functions/resources/call-service.js';
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

let calls: CallService | undefined;
export const callService = (): CallService =>
  (calls ??= createCallService({ ...storesAndAccess(), vault: credentialVault(), limiter: rateLimiter, clock: systemClock, send: outboundRequest }));

/** The ResourceCaller port (functions/platform/ports.ts), plus callAsOwner for x402 payments. */
export const resourceCaller = (): ResourceCaller & Pick<CallService, 'callAsOwner'> => callService();

let installs: InstallationService | undefined;
export const installationService = (): InstallationService =>
  (installs ??= createInstallationService({ ...storesAndAccess(), vault: credentialVault(), clock: systemClock }));

let service: ResourceService | undefined;
export const resourceService = (): ResourceService => (service ??= createResourceService({ ...storesAndAccess(), clock: systemClock }));

/** Payments records each settled x402 payment here; metrics' `totalRevenue` includes it. */
export const recordRevenue = (resourceId: string, amountUsd: number) => resourceService().recordRevenue(resourceId, amountUsd);

let webhooks: ReturnType<typeof createWebhookService> | undefined;
export const webhookService = () =>
  (webhooks ??= createWebhookService({
    installations: createInstallationStore(),
    versions: createVersionCache(createResourceStore()),
    vault: credentialVault(),
    publisher: eventPublisher,
    clock: systemClock,
  }));

let reviewTarget: ReviewTarget | undefined;
/** The resources side of the shared reviews module: ratings live on the resource item, installers may review. */
export const resourceReviewTarget = (): ReviewTarget => {
  if (!reviewTarget) {
    const [resources, installations] = [createResourceStore(), createInstallationStore()];
    const access = createAccess({ resources, installations });
    reviewTarget = {
      itemType: 'resource',
      ratingUpdate: resources.ratingUpdate,
      visibleOwner: async (userId, resourceId) => (await access.visible(userId, resourceId)).ownerId,
      isInstaller: async (userId, resourceId) => (await installations.get(userId, resourceId)) !== undefined,
    };
  }
  return reviewTarget;
};
