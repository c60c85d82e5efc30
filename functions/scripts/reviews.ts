// The scripts side of the shared reviews module: ratings live on the script item, installers may review.
import type { ReviewTarget } from '#functions/marketplace/reviews.js';
import { scriptService } from './service.js';
import { createScriptStore } from './store.js';

let target: ReviewTarget | undefined;
export const scriptReviewTarget = (): ReviewTarget => {
  if (!target) {
    const store = createScriptStore();
    target = {
      itemType: 'script',
      ratedItem: (scriptId) => ({ table: 'scripts', key: { scriptId } }),
      visibleOwner: async (userId, scriptId) => (await scriptService().readable(userId, scriptId)).ownerId,
      isInstaller: async (userId, scriptId) => (await store.getInstallation(scriptId, userId)) !== undefined,
    };
  }
  return target;
};
