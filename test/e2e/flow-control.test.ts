// Flow control of script runs over HTTP with real sandboxed workers: a burst of executes gives exactly the runs each
// option promises. rateLimit skips (429 RATE_LIMITED, a skipped record with its reason), throttle queues (queued
// records with their reason and time, all run once, none dropped), singleton skips a second run of a key value while
// one runs, and queueTtl expires a run that waited too long.
import { describe, expect, it } from 'vitest';
import { waitFor } from '../support/local-start.js';
import { heldRunWorld } from '../support/resources.js';
import { givenDeployed, nodeEcho, sdk } from '../support/scripts.js';

const world = heldRunWorld();

const executeAll = (scriptId: string, data: Array<Record<string, unknown>>) =>
  Promise.all(data.map((item) => world.api.as(world.owner.apiKey).post(sdk('executeScript'), { scriptId, data: item })));

type ListedRun = { executionId: string; status: string; reason?: string; queue?: { reason: string; key?: string; until?: string } };

const runsOf = async (scriptId: string, status?: string): Promise<ListedRun[]> =>
  (await world.api.as(world.owner.apiKey).get(`/api/sdk/v1/executions?scriptId=${scriptId}&limit=100${status ? `&status=${status}` : ''}`)).body.data
    .executions;

/** Reads until `done` says so (queued runs start when their window opens). */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string): Promise<T> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

const count = (runs: ListedRun[], status: string) => runs.filter((run) => run.status === status).length;

describe('flow control: a burst of executes', () => {
  it('rateLimit runs `limit` per key value and skips the rest with 429 RATE_LIMITED and a skipped record', async () => {
    // Prepare
    const script = await givenDeployed(world.api, world.owner, {
      code: nodeEcho('rated'),
      config: { rateLimit: { limit: 3, period: { hours: 1 }, key: 'customer' } },
    });
    // Act
    const answers = await executeAll(script.id, [...Array(5).fill({ customer: 'a' }), { customer: 'b' }]);
    // Assess
    const refused = answers.filter((answer) => answer.status === 429);
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(4);
    expect(refused).toHaveLength(2);
    for (const answer of refused) {
      expect(answer.body.error.code).toBe('RATE_LIMITED');
      expect(Number(answer.headers.get('retry-after'))).toBeGreaterThan(0);
    }
    const runs = await runsOf(script.id);
    expect(count(runs, 'completed')).toBe(4);
    expect(runs.filter((run) => run.status === 'skipped').map((run) => run.reason)).toEqual(['rateLimit', 'rateLimit']);
  }, 120_000);

  it('throttle queues the runs past the window as queued records and runs each of them once', async () => {
    // Prepare
    const script = await givenDeployed(world.api, world.owner, { code: nodeEcho('throttled'), config: { throttle: { limit: 2, period: { seconds: 2 } } } });
    // Act
    const answers = await executeAll(
      script.id,
      Array.from({ length: 6 }, (_, index) => ({ index })),
    );
    const queuedNow = await runsOf(script.id, 'queued');
    // Assess
    expect(answers.filter((answer) => answer.status === 200)).toHaveLength(2);
    const queuedAnswers = answers.filter((answer) => answer.status === 202);
    expect(queuedAnswers.map((answer) => answer.body.data.status)).toEqual(['queued', 'queued', 'queued', 'queued']);
    expect(queuedNow.length).toBeGreaterThan(0);
    for (const run of queuedNow) expect(run.queue).toMatchObject({ reason: 'throttle', until: expect.any(String) });
    const runs = await until(
      () => runsOf(script.id),
      (found) => count(found, 'completed') === 6,
      'six completed runs',
    );
    expect(runs).toHaveLength(6);
    expect(runs.every((run) => run.queue === undefined)).toBe(true);
  }, 180_000);

  it('singleton skip keeps the running run of a key value and skips a second one', async () => {
    // Prepare
    world.calls.hold();
    const script = await givenDeployed(world.api, world.owner, {
      config: { allowedResources: [world.resourceName], singleton: { key: 'customer', mode: 'skip' } },
      code: `export async function handler(event) { return await resources['${world.resourceName}'].getForecast({ city: String(event.data.customer) }); }`,
    });
    const [first, other] = [{ customer: 'a' }, { customer: 'b' }].map((data) =>
      world.api.as(world.owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data }),
    );
    await waitFor(() => world.calls.held.length === 2, 'a run of each key value held');
    // Act
    const [second] = await executeAll(script.id, [{ customer: 'a' }]);
    world.calls.answerAll();
    // Assess
    expect(second!.status).toBe(409);
    expect(second!.body.error.code).toBe('CONFLICT');
    expect((await first!).status).toBe(200);
    expect((await other!).status).toBe(200);
    const runs = await runsOf(script.id);
    expect(count(runs, 'completed')).toBe(2);
    expect(runs.filter((run) => run.status === 'skipped').map((run) => run.reason)).toEqual(['singleton']);
  }, 120_000);

  it('queueTtl expires a queued run that waited past it, without running it', async () => {
    // Prepare
    const script = await givenDeployed(world.api, world.owner, {
      code: nodeEcho('expiring'),
      config: { throttle: { limit: 1, period: { hours: 1 } }, queueTtl: { seconds: 1 } },
    });
    // Act
    const [ran, waited] = await executeAll(script.id, [{ n: 1 }, { n: 2 }]).then((answers) => answers.sort((a, b) => a.status - b.status));
    // Assess
    expect(ran!.status).toBe(200);
    expect(waited!.body.data.status).toBe('queued');
    const runs = await until(
      () => runsOf(script.id),
      (found) => count(found, 'expired') === 1,
      'the queued run expired',
    );
    expect(runs.find((run) => run.executionId === waited!.body.data.executionId)).toMatchObject({ status: 'expired', reason: 'queueTtl' });
    expect(count(runs, 'completed')).toBe(1);
  }, 120_000);
});
