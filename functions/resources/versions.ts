import { NotFoundError } from '#platform/errors.js';
import type { ResourceVersion } from './records.js';
import type { ResourceStore } from './store.js';

const maxEntries = 1000;

/** Version snapshots never change, so a warm function reads each one once: the call path costs no read for it. */
export function createVersionCache(store: Pick<ResourceStore, 'getVersion'>) {
  const cache = new Map<string, Promise<ResourceVersion>>();
  return {
    get(resourceId: string, version: number): Promise<ResourceVersion> {
      const key = `${resourceId}#${version}`;
      let snapshot = cache.get(key);
      if (!snapshot) {
        snapshot = store.getVersion(resourceId, version).then((found) => {
          if (!found) throw new NotFoundError('resourceId', resourceId, `version ${version} of resource`);
          return found;
        });
        snapshot.catch(() => cache.delete(key));
        if (cache.size >= maxEntries) cache.delete(cache.keys().next().value!);
        cache.set(key, snapshot);
      }
      return snapshot;
    },
  };
}

export type VersionCache = ReturnType<typeof createVersionCache>;
