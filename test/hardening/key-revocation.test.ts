// A key lookup held in flight while the key is revoked must not put the key back into the authorizer's cache.
import { describe, expect, it } from 'vitest';
import { createKeyCache } from '../../functions/accounts/key-cache.js';
import { createAccountService } from '../../functions/accounts/service.js';
import type { AccountStore, StoredKey } from '../../functions/accounts/store.js';
import { systemClock } from '../../functions/platform/clock.js';
import { sha256Hex } from '../../functions/platform/ids.js';
import { printAttackSummary } from '../support/attack-summary.js';

printAttackSummary('key revocation (a lookup in flight)');

const apiKey = 'amp_test-key-revocation';
const noGrants = { identityOf: async () => ({ reason: 'unknown' as const }) };

/** One key in memory; the first read copies the record, then waits for `release`, as a slow DynamoDB read would. */
function heldStore() {
  const key: StoredKey = {
    keyHash: sha256Hex(apiKey),
    keyId: 'key_1',
    userId: 'usr_1',
    name: 'temp',
    scopes: ['*'],
    prefix: apiKey.slice(0, 8),
    createdAt: '2026-01-01T00:00:00.000Z',
  };
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  let readStarted!: () => void;
  const started = new Promise<void>((resolve) => (readStarted = resolve));
  let reads = 0;
  const store: Pick<AccountStore, 'getKeyByHash' | 'listKeys' | 'revokeKey'> = {
    async getKeyByHash(keyHash) {
      const snapshot = keyHash === key.keyHash ? { ...key } : undefined;
      if (reads++ === 0) {
        readStarted();
        await gate;
      }
      return snapshot;
    },
    listKeys: async (userId) => (userId === key.userId ? [{ ...key }] : []),
    async revokeKey(_keyHash, revokedAt) {
      key.revokedAt = revokedAt;
    },
  };
  return { store: store as AccountStore, key, release, started, reads: () => reads };
}

describe('accounts: key revocation against an in-flight lookup', () => {
  it('refuses the key after a lookup that read it before the revocation is released, and never caches it as valid', async () => {
    // Prepare
    const held = heldStore();
    const keyCache = createKeyCache(30_000, () => 0);
    const accounts = createAccountService({ store: held.store, clock: systemClock, keyCache, grants: noGrants });
    const inFlight = accounts.resolveKey(apiKey);
    await held.started;
    // Act
    await accounts.revokeKey(held.key.userId, held.key.keyId);
    held.release();
    const answeredInFlight = await inFlight;
    const cached = keyCache.get(held.key.keyHash);
    const later = await accounts.resolveKey(apiKey);
    // Assess
    expect(answeredInFlight).toEqual({ reason: 'revoked' });
    expect(cached).toEqual({ reason: 'revoked' });
    expect(later).toEqual({ reason: 'revoked' });
  });

  it('caches a lookup that no revocation overlapped, reading the store once', async () => {
    // Prepare
    const held = heldStore();
    const keyCache = createKeyCache(30_000, () => 0);
    const accounts = createAccountService({ store: held.store, clock: systemClock, keyCache, grants: noGrants });
    // Act
    const first = accounts.resolveKey(apiKey);
    await held.started;
    held.release();
    const identities = [await first, await accounts.resolveKey(apiKey)];
    // Assess
    expect(identities).toEqual([
      { userId: 'usr_1', keyId: 'key_1', scopes: '*' },
      { userId: 'usr_1', keyId: 'key_1', scopes: '*' },
    ]);
    expect(held.reads()).toBe(1);
  });
});
