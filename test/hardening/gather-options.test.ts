// Hardening: debounce and batch are bounded. Every option a hostile owner could send past what a window item can hold
// or the scheduler can honour (a period of 0, maxWait under period, maxSize 0 or above 1,000, a key that is not a
// dotted path, both options at once) is VALIDATION_ERROR naming the field and changes nothing; a trigger whose data
// would swell a batch window past its share is refused the same way, and joins no window.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed, rest, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
});
afterAll(() => api.stop());

const hostile: Array<[string, Record<string, unknown>, string]> = [
  ['a period of 0', { debounce: { period: { seconds: 0 } } }, 'config.debounce.period.seconds'],
  ['maxWait under period', { debounce: { period: { minutes: 5 }, maxWait: { seconds: 30 } } }, 'config.debounce.maxWait'],
  ['a period past a day', { debounce: { period: { hours: 25 } } }, 'config.debounce.period'],
  ['two units in one period', { debounce: { period: { seconds: 5, hours: 1 } } }, 'config.debounce.period'],
  ['maxSize 0', { batch: { maxSize: 0, timeout: { seconds: 5 } } }, 'config.batch.maxSize'],
  ['maxSize above the bound', { batch: { maxSize: 1_000_001, timeout: { seconds: 5 } } }, 'config.batch.maxSize'],
  ['a key that is not a dotted path', { batch: { maxSize: 5, timeout: { seconds: 5 }, key: 'a..b' } }, 'config.batch.key'],
  ['a key reaching for the prototype', { debounce: { period: { seconds: 5 }, key: '__proto__["x"]' } }, 'config.debounce.key'],
  ['debounce and batch at once', { debounce: { period: { seconds: 5 } }, batch: { maxSize: 5, timeout: { seconds: 5 } } }, 'config.batch'],
];

describe('flow control: debounce and batch options are bounded', () => {
  it.each(hostile)('refuses %s naming the field, and changes nothing', async (_what, config, field) => {
    // Prepare
    const script = await givenDeployed(api, owner, { config: { debounce: { period: { seconds: 30 } } } });
    // Act
    const answer = await api.as(owner.apiKey).patch(`${rest}/${script.id}`, { config });
    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    const stored = await api.as(owner.apiKey).get(`${rest}/${script.id}`);
    expect(stored.body.data.config.debounce).toEqual({ period: { seconds: 30 } });
    expect(stored.body.data.config.batch).toBeUndefined();
  });

  it('refuses a batch trigger whose data is past its share of the window, and queues nothing for it', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { config: { batch: { maxSize: 10, timeout: { hours: 1 } } } });
    // Act
    const answer = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: { blob: 'x'.repeat(70_000) } });
    // Assess
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'VALIDATION_ERROR', details: { field: 'data' } });
    const runs = await api.as(owner.apiKey).get(`${rest}/${script.id}/executions`);
    expect(runs.body.data.executions).toHaveLength(0);
  });
});
