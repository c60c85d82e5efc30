// The scripts side of the shared reviews module: ratings live on the script item, installers may review.
import type { ReviewTarget } from '#functions/reviews/api.js';
import type { ScriptService } from './service.js';
import type { ScriptStore } from './store.js';

export function createScriptReviewTarget(deps: { scripts: ScriptService; store: ScriptStore }): ReviewTarget {
  return {
    itemType: 'script',
    ratingUpdate: deps.store.ratingUpdate,
    visibleOwner: async (userId, scriptId) => (await deps.scripts.readable(userId, scriptId)).ownerId,
    isInstaller: async (userId, scriptId) => (await deps.store.getInstallation(scriptId, userId)) !== undefined,
  };
}
