// The authorizer's own result cache (API Gateway's cannot be used: see docs/decisions.md).

export type Identity = { userId: string; keyId: string; scopes: string } | { reason: 'missing' | 'unknown' | 'revoked' };

const maxEntries = 10_000;

export function createKeyCache(ttlMs: number, now: () => number) {
  const entries = new Map<string, { identity: Identity; expiresAt: number }>();
  return {
    get(keyHash: string): Identity | undefined {
      const entry = entries.get(keyHash);
      if (!entry) return undefined;
      if (entry.expiresAt > now()) return entry.identity;
      entries.delete(keyHash);
      return undefined;
    },
    set(keyHash: string, identity: Identity) {
      // Map keeps insertion order, so the first key is the oldest entry.
      if (entries.size >= maxEntries) entries.delete(entries.keys().next().value!);
      entries.set(keyHash, { identity, expiresAt: now() + ttlMs });
    },
    invalidate(keyHash: string) {
      entries.delete(keyHash);
    },
  };
}

export type KeyCache = ReturnType<typeof createKeyCache>;
