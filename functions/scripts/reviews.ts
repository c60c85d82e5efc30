// The scripts side of the shared reviews module: ratings live on the script item, installers may review.
import type { ReviewTarget } from '#functions/reviews/reviews.js';
import type { ScriptService } from './service.js';
import type { ScriptStore } from './store.js';

export function createScriptReviewTarget(deps: { scripts: ScriptService; store: ScriptStore }): ReviewTarget {
  return {
    itemType: 'script',
    ratedItem: (scriptId) => ({ table: 'scripts', key: { scriptId } }),
    visibleOwner: async (userId, scriptId) => (await deps.scripts.readable(userId, scriptId)).ownerId,
    isInstaller: async (userId, scriptId) => (await deps.store.getInstallation(scriptId, userId)) !== undefined,
  };
}
