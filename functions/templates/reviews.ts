// The templates side of the shared reviews module: ratings live on the template item, installers may review.
import type { ReviewTarget } from '#functions/reviews/api.js';
import { NotFoundError } from '#platform/errors.js';
import type { TemplateStore } from './store.js';

export function createTemplateReviewTarget(store: TemplateStore): ReviewTarget {
  return {
    itemType: 'template',
    ratingUpdate: store.ratingUpdate,
    async visibleOwner(userId, templateId) {
      const template = await store.get(templateId);
      if (!template || (template.ownerId !== userId && template.status !== 'published')) throw new NotFoundError('templateId', templateId, 'template');
      return template.ownerId;
    },
    isInstaller: async (userId, templateId) => (await store.listInstallationsByUser(userId)).some((installation) => installation.templateId === templateId),
  };
}
