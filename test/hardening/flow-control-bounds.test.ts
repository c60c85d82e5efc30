// Flow-control options are user input: each is bounded and explained. A period of 0, a limit above what the platform
// can honour, a key that is not a dotted path, a priority past its bounds: VALIDATION_ERROR naming the field, and
// nothing changes (the script keeps its config). A valid block is kept as given.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { type GivenScript, givenScript, rest } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let script: GivenScript;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
  script = await givenScript(api, owner);
});
afterAll(() => api.stop());

const configOf = async () => (await api.as(owner.apiKey).get(`${rest}/${script.id}`)).body.data.config;

describe('flow control: hostile options', () => {
  it.each([
    ['config.throttle.period', { throttle: { limit: 5, period: { seconds: 0 } } }],
    ['config.rateLimit.period', { rateLimit: { limit: 5, period: { hours: 48 } } }],
    ['config.throttle.limit', { throttle: { limit: 1_000_000, period: { seconds: 1 } } }],
    ['config.rateLimit.limit', { rateLimit: { limit: 5000, period: { seconds: 1 } } }],
    ['config.throttle.key', { throttle: { limit: 1, period: { seconds: 1 }, key: '__proto__..x' } }],
    ['config.singleton.key', { singleton: { mode: 'skip', key: 'a b' } }],
    ['config.singleton.mode', { singleton: { mode: 'replace' } }],
    ['config.priority.key', { priority: { key: `${'a.'.repeat(150)}a` } }],
    ['config.queueTtl', { queueTtl: { seconds: 0 } }],
    ['config.queueTtl', { queueTtl: { hours: 168, minutes: 1 } }],
  ])('refuses %s with VALIDATION_ERROR naming it, and keeps the config', async (field, config) => {
    // Act
    const refused = await api.as(owner.apiKey).patch(`${rest}/${script.id}`, { config });
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('VALIDATION_ERROR');
    expect(refused.body.error.details.field).toBe(field);
    const kept = await configOf();
    for (const name of ['throttle', 'rateLimit', 'singleton', 'priority', 'queueTtl']) expect(kept[name]).toBeUndefined();
  });

  it('keeps a valid block as given, and null removes an option', async () => {
    // Prepare
    const config = {
      throttle: { limit: 50, period: { seconds: 1 }, key: 'customer.id' },
      rateLimit: { limit: 100, period: { minutes: 1 } },
      priority: { key: 'priority' },
      singleton: { mode: 'cancel' },
      queueTtl: { minutes: 5 },
    };
    // Act
    const updated = await api.as(owner.apiKey).patch(`${rest}/${script.id}`, { config });
    const removed = await api.as(owner.apiKey).patch(`${rest}/${script.id}`, { config: { singleton: null } });
    // Assess
    expect(updated.status).toBe(200);
    expect(removed.status).toBe(200);
    const kept = await configOf();
    expect(kept).toMatchObject({ throttle: config.throttle, rateLimit: config.rateLimit, priority: config.priority, queueTtl: config.queueTtl });
    expect(kept.singleton).toBeUndefined();
  });
});
