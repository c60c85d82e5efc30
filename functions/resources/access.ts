// Who may see or change what: owners see their drafts, others published resources and those they
// installed before an unpublish; any other private object is NOT_FOUND, never revealed.
import { ConflictError, ForbiddenError, NotFoundError } from '#platform/errors.js';
import type { InstallationStore } from './installation-store.js';
import type { InstallationItem, ResourceItem } from './records.js';
import type { ResourceStore } from './store.js';

export function createAccess(deps: { resources: ResourceStore; installations: InstallationStore }) {
  async function visible(userId: string, resourceId: string): Promise<ResourceItem> {
    const resource = await deps.resources.get(resourceId);
    if (resource && (resource.ownerId === userId || resource.status === 'published')) return resource;
    if (resource && (await deps.installations.get(userId, resourceId))) return resource;
    throw new NotFoundError('resourceId', resourceId, 'resource');
  }

  return {
    visible,

    /** The owner's resource; another user's published resource is FORBIDDEN to change, a draft is NOT_FOUND. */
    async owned(userId: string, resourceId: string, action: string): Promise<ResourceItem> {
      const resource = await visible(userId, resourceId);
      if (resource.ownerId !== userId) throw new ForbiddenError(`only the creator of resource ${resourceId} may ${action} it`, { resourceId });
      return resource;
    },

    /** The caller's installation of a resource; CONFLICT when the resource is visible but not installed. */
    async installation(userId: string, resourceId: string, maxAgeMs = 0): Promise<InstallationItem> {
      const installation = await deps.installations.get(userId, resourceId, maxAgeMs);
      if (installation) return installation;
      await visible(userId, resourceId);
      throw new ConflictError(`resource ${resourceId} is not installed: install it first (POST /api/sdk/v1/resources/${resourceId}/install)`, {
        resourceId,
        reason: 'not_installed',
      });
    },

    async ownInstallation(userId: string, installationId: string): Promise<InstallationItem> {
      const installation = await deps.installations.getById(installationId);
      if (!installation || installation.userId !== userId) throw new NotFoundError('installationId', installationId, 'installation');
      return installation;
    },
  };
}

export type Access = ReturnType<typeof createAccess>;
