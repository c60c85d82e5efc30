// Load at the limits: 50 clients on one key get exactly the 1,000 requests of its minute, and 100 concurrent executes
// of one script run exactly 10 at once, the others refused with CONCURRENCY_LIMIT.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResponse, type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { type Upstream, givenInstalled, givenPublishedResource, json, startUpstream } from '../support/resources.js';
import { givenDeployed, rest } from '../support/scripts.js';
import { waitFor } from '../support/local-start.js';

let api: TestApi;
let upstream: Upstream;
let [caller, runner, spreader]: TestUser[] = [];

beforeAll(async () => {
  [api, upstream] = await Promise.all([startTestPlatform(), startUpstream()]);
  [caller, runner, spreader] = await Promise.all([api.givenUser(), api.givenUser(), api.givenUser()]);
});
afterAll(async () => {
  await upstream.close();
  await api.stop();
});

/**
 * 50 clients share `keys` and call until 50 refusals with `details.per` = `per` fall in one window; each answer is
 * counted in the window it names (`X-RateLimit-Reset`), so a burst across a minute's edge is counted right.
 */
async function burst(keys: string[], per: 'key' | 'user') {
  const windows = new Map<string, { admitted: number; refused: number }>();
  const full = () => [...windows.entries()].find(([, window]) => window.refused >= 50);
  const unexpected: string[] = [];
  await Promise.all(
    Array.from({ length: 50 }, async (_, client) => {
      while (!full()) {
        const answer = await api.as(keys[client % keys.length]!).get('/api/sdk/v1/me');
        const reset = answer.headers.get('x-ratelimit-reset')!;
        const window = windows.get(reset) ?? { admitted: 0, refused: 0 };
        windows.set(reset, window);
        if (answer.status === 200) window.admitted += 1;
        else if (
          answer.status === 429 &&
          answer.body.error?.code === 'RATE_LIMITED' &&
          answer.body.error.details?.per === per &&
          answer.headers.get('retry-after')
        )
          window.refused += 1;
        else if (answer.status !== 429) unexpected.push(`${answer.status} ${answer.text.slice(0, 200)}`);
      }
    }),
  );
  const [reset, window] = full()!;
  return { ...window, reset, windows: [...windows.values()], unexpected };
}

describe('hardening: load', () => {
  it('admits exactly 1,000 requests of one key in its minute from 50 clients and refuses the 1,001st', async () => {
    // Act
    const run = await burst([caller.apiKey], 'key');
    console.log(
      `load: 50 clients on one key, ${run.admitted} admitted and ${run.refused} refused in the full window; unexpected answers ${run.unexpected.length}`,
    );
    // Assess
    expect(run.unexpected).toEqual([]);
    expect(run.admitted).toBe(1000);
    expect(run.windows.every((window) => window.admitted <= 1000)).toBe(true);
  }, 300_000);

  it('admits exactly 2,000 requests of one user in its minute from 50 clients spread over 3 keys', async () => {
    // Prepare: issuing the keys spends the user's budget too
    const issued = await Promise.all([1, 2, 3].map((n) => api.as(spreader.apiKey).post('/api/sdk/v1/keys', { name: `spread ${n}` })));
    const keys = issued.map((answer) => answer.body.data.apiKey as string);
    // Act
    const run = await burst(keys, 'user');
    const spentOnKeys = issued.filter((answer) => answer.headers.get('x-ratelimit-reset') === run.reset).length;
    console.log(
      `load: 50 clients on 3 keys of one user, ${run.admitted} admitted (+${spentOnKeys} issuing the keys) and ${run.refused} refused per user in the full window; unexpected answers ${run.unexpected.length}`,
    );
    // Assess
    expect(run.unexpected).toEqual([]);
    expect(run.admitted + spentOnKeys).toBe(2000);
  }, 300_000);

  it('runs exactly 10 executions of a script at once under 100 concurrent executes; the others get CONCURRENCY_LIMIT', async () => {
    // Prepare: each run calls an upstream that holds the call until the test lets it go
    const held: ServerResponse[] = [];
    upstream.respond((_request, response) => void held.push(response));
    const name = `held-${Date.now().toString(36)}`;
    const resourceId = await givenPublishedResource(api, runner, { name }, { baseUrl: upstream.baseUrl });
    await givenInstalled(api, runner, resourceId);
    const script = await givenDeployed(api, runner, {
      config: { allowedResources: [name] },
      code: `export async function handler(event) { return await resources['${name}'].getForecast({ city: String(event.data.n) }); }`,
    });
    const answers: ApiResponse[] = [];
    // Act
    const executes = Array.from({ length: 100 }, (_, n) =>
      api
        .as(runner.apiKey)
        .post(`${rest}/${script.id}/execute`, { data: { n } })
        .then((answer) => answers.push(answer)),
    );
    await waitFor(() => held.length === 10 && answers.length === 90, '10 runs held and 90 answers');
    const runningAtOnce = held.length;
    for (const response of held) json(response, 200, { ok: true });
    await Promise.all(executes);
    const refused = answers.filter((answer) => answer.status === 429 && answer.body.error?.code === 'CONCURRENCY_LIMIT' && answer.headers.get('retry-after'));
    const ran = answers.filter((answer) => answer.status === 200 && answer.body.data.result?.ok === true);
    console.log(`load: 100 concurrent executes of one script, ${runningAtOnce} running at once, ${ran.length} completed, ${refused.length} CONCURRENCY_LIMIT`);
    // Assess
    expect(runningAtOnce).toBe(10);
    expect(ran).toHaveLength(10);
    expect(refused).toHaveLength(90);
    expect(held).toHaveLength(10);
  }, 300_000);
});
