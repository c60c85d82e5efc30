import { describe, expect, it } from 'vitest';
import { presentedKey } from '../../functions/app/accounts/handlers/authorize-api-key.js';
import { createKeyCache } from '../../functions/accounts/key-cache.js';
import { memoryRateLimiter } from '../../functions/adapters/local/rate-limiter.js';
import { isSolanaAddress } from '../../functions/platform/schemas.js';

describe('authorizer: presented key', () => {
  it.each([
    [{ 'x-api-key': 'amp_a' }, 'amp_a'],
    [{ authorization: 'Bearer amp_b' }, 'amp_b'],
    [{ authorization: 'bearer   amp_c ' }, 'amp_c'],
    [{ authorization: 'Basic dXNlcjpwYXNz' }, undefined],
    [{ authorization: 'Bearer' }, undefined],
    [{}, undefined],
  ])('reads %j as %s', (headers, expected) => {
    expect(presentedKey(headers)).toBe(expected);
  });
});

describe('authorizer: key cache', () => {
  it('answers until the TTL passes, then forgets', () => {
    // Prepare
    let now = 0;
    const cache = createKeyCache(1000, () => now);
    cache.set('h', { reason: 'unknown' }, cache.generation());
    // Act
    const fresh = cache.get('h');
    now = 1001;
    const stale = cache.get('h');
    // Assess
    expect(fresh).toEqual({ reason: 'unknown' });
    expect(stale).toBeUndefined();
  });

  it('forgets an invalidated key at once', () => {
    const cache = createKeyCache(60_000, () => 0);
    cache.set('h', { userId: 'u', keyId: 'k', scopes: '*' }, cache.generation());
    cache.invalidate('h');
    expect(cache.get('h')).toBeUndefined();
  });
});

describe('local rate limiter', () => {
  it('allows the limit within a window and starts afresh in the next', async () => {
    // Prepare
    const limiter = memoryRateLimiter();
    const start = Date.UTC(2026, 0, 1, 0, 0, 10);
    // Act
    const hits = [];
    for (let i = 0; i < 4; i++) hits.push(await limiter.hit('k', 3, 60, start));
    const next = await limiter.hit('k', 3, 60, start + 60_000);
    // Assess
    expect(hits.map((hit) => hit.allowed)).toEqual([true, true, true, false]);
    expect(hits.map((hit) => hit.remaining)).toEqual([2, 1, 0, 0]);
    expect(hits[0]!.resetAt).toBe(Date.UTC(2026, 0, 1, 0, 1, 0) / 1000);
    expect(next).toMatchObject({ allowed: true, remaining: 2 });
  });
});

describe('Solana addresses', () => {
  it.each([
    ['9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM', true],
    ['11111111111111111111111111111111', true],
    ['0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl', false],
    ['9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGY', false],
  ])('%s is valid: %s', (address, valid) => {
    expect(isSolanaAddress(address)).toBe(valid);
  });
});
