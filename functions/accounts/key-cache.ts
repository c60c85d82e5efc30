// The authorizer's own result cache (API Gateway's cannot be used: see docs/decisions.md).

/**
 * An OAuth access token's identity also names the resource it is bound to and when it expires (ms), both checked on
 * every request, cached or not.
 */
export type Identity =
  | { userId: string; keyId: string; scopes: string; resource?: string; expiresAt?: number }
  | { reason: 'missing' | 'unknown' | 'revoked' | 'expired' | 'wrong_resource' };

const maxEntries = 10_000;

export function createKeyCache(ttlMs: number, now: () => number) {
  const entries = new Map<string, { identity: Identity; expiresAt: number }>();
  // Bumped by every invalidation: a lookup that started before one may have read the key before it was revoked, so
  // its answer is not cached. One counter for all keys keeps no tombstones; revocations are rare.
  let generation = 0;
  return {
    get(keyHash: string): Identity | undefined {
      const entry = entries.get(keyHash);
      if (!entry) return undefined;
      if (entry.expiresAt > now()) return entry.identity;
      entries.delete(keyHash);
      return undefined;
    },
    /** Taken before reading the store; `set` caches only while it is still current. */
    generation: () => generation,
    /** Caches `identity` unless an invalidation happened since `readAt` was taken; says whether it did. */
    set(keyHash: string, identity: Identity, readAt: number): boolean {
      if (readAt !== generation) return false;
      // Map keeps insertion order, so the first key is the oldest entry.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(keyHash, { identity, expiresAt: now() + ttlMs });
      return true;
    },
    invalidate(keyHash: string) {
      generation++;
      entries.delete(keyHash);
    },
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
