// The resources side of the shared reviews module: ratings live on the resource item, installers may review.
import type { ReviewTarget } from '#functions/marketplace/reviews.js';
import { createAccess } from './access.js';
import { createInstallationStore } from './installation-store.js';
import { createResourceStore } from './store.js';

let target: ReviewTarget | undefined;
export const resourceReviewTarget = (): ReviewTarget => {
  if (!target) {
    const installations = createInstallationStore();
    const access = createAccess({ resources: createResourceStore(), installations });
    target = {
      itemType: 'resource',
      ratedItem: (resourceId) => ({ table: 'resources', key: { resourceId } }),
      visibleOwner: async (userId, resourceId) => (await access.visible(userId, resourceId)).ownerId,
      isInstaller: async (userId, resourceId) => (await installations.get(userId, resourceId)) !== undefined,
    };
  }
  return target;
};
