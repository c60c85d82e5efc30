// Hardening: a durable run's state is bounded. A run past its steps or its journal's bytes fails with
// DURABLE_LIMIT_EXCEEDED (whatever its code does with the refusal); large step results live in the blob store and
// come back on replay; getExecution pages a run's steps; a run's waits close when it ends; a user's runs hold a
// bounded number of waits open (on AWS each is a Scheduler schedule of the shared account), and a script cannot open
// one around the step API. The platform starts with small bounds, so nothing here creates thousands of anything.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { durableRuns } from '../support/durable-runs.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed, sdk } from '../support/scripts.js';

const bounds = {
  DURABLE_MAX_STEPS: '20',
  DURABLE_MAX_JOURNAL_BYTES: '2000000',
  DURABLE_MAX_OPEN_WAITS_PER_USER: '3',
};

let api: TestApi;
let owner: TestUser;
let neighbour: TestUser;

beforeAll(async () => {
  Object.assign(process.env, bounds);
  api = await startTestPlatform();
  [owner, neighbour] = await Promise.all([api.givenUser(), api.givenUser()]);
});
afterAll(async () => {
  await api.stop();
  for (const name of Object.keys(bounds)) delete process.env[name];
});

interface Step {
  name: string;
  type: string;
  status: string;
  result?: unknown;
}

const durable = (who: TestUser, code: string) => givenDeployed(api, who, { code, config: { durable: true, timeout: 30 } });
const start = async (who: TestUser, scriptId: string, data: Record<string, unknown> = {}) =>
  (await api.as(who.apiKey).post(sdk('executeScript'), { scriptId, data })).body.data.executionId as string;

/** `count` steps, each returning `bytes` characters; a refusal is caught, so only the platform can fail the run. */
const manySteps = (count: number, bytes: number) => `export async function handler(event, context) {
  const refusals = [];
  for (let index = 0; index < ${count}; index++) {
    try {
      await context.step('s' + index, async () => ({ index, text: 'x'.repeat(${bytes}) }));
    } catch (error) {
      refusals.push(error.code);
    }
  }
  return { refusals };
}`;

describe('hardening: durable runs are bounded', () => {
  it('fails a run past its steps with DURABLE_LIMIT_EXCEEDED even when its code catches the refusal', async () => {
    // Prepare
    const script = await durable(owner, manySteps(25, 10));
    // Act
    const executionId = await start(owner, script.id);
    // Assess
    const failed = await durableRuns(api, owner).waitForStatus(executionId, 'failed');
    expect(failed.error.code).toBe('DURABLE_LIMIT_EXCEEDED');
    expect(failed.steps).toHaveLength(20);
  });

  it("fails a run whose step results pass its journal's bytes, keeping the results it stored", async () => {
    // Prepare: 200 KB results go to the blob store; ten of them pass 2 MB
    const script = await durable(owner, manySteps(12, 200_000));
    // Act
    const executionId = await start(owner, script.id);
    // Assess
    const failed = await durableRuns(api, owner).waitForStatus(executionId, 'failed');
    expect(failed.error.code).toBe('DURABLE_LIMIT_EXCEEDED');
    expect(failed.error.message).toContain('2000000 bytes');
    const stored = failed.steps as Step[];
    expect(stored.length).toBeLessThan(12);
    expect(stored.map((step) => (step.result as { index: number; text: string }).text.length)).toEqual(stored.map(() => 200_000));
  });

  it('pages the steps of a large run, and a resumed run gets its large results back from the blob store', async () => {
    // Prepare: a 100 KB result before a wait is replayed from the blob store when the run resumes
    const script = await durable(
      owner,
      `export async function handler(event, context) {
  const first = await context.step('first', async () => ({ text: 'a'.repeat(100000) }));
  await context.wait('pause', { seconds: 1 });
  for (let index = 0; index < 12; index++) await context.step('s' + index, async () => ({ index, text: 'b'.repeat(50000) }));
  return { firstLength: first.text.length };
}`,
    );
    const executionId = await start(owner, script.id);
    const finished = await durableRuns(api, owner).waitForStatus(executionId, 'completed');
    // Act
    const pages: { steps: Step[]; stepsNextCursor?: string }[] = [];
    let cursor: string | undefined;
    do {
      const page = await api.as(owner.apiKey).post(sdk('getExecution'), { executionId, stepsLimit: 4, ...(cursor && { stepsCursor: cursor }) });
      expect(page.status).toBe(200);
      pages.push(page.body.data);
      cursor = page.body.data.stepsNextCursor;
    } while (cursor);
    // Assess
    expect(finished.output).toEqual({ firstLength: 100_000 });
    expect(pages.map((page) => page.steps.length)).toEqual([4, 4, 4, 2]);
    const names = pages.flatMap((page) => page.steps.map((step) => step.name));
    expect(names).toEqual(['first', 'pause', ...Array.from({ length: 12 }, (_, index) => `s${index}`)]);
    expect((pages[3]!.steps[1]!.result as { text: string }).text).toHaveLength(50_000);
  });

  it('closes the waits of a run that ended while they were open, and gives their places back', async () => {
    // Prepare: the submitter fails after the callback wait opened, and the code returns without waiting
    const script = await durable(
      owner,
      `export async function handler(event, context) {
  try {
    await context.waitForCallback('cb', async () => { throw new Error('the other system is down'); });
  } catch (error) {
    return { gaveUp: error.message };
  }
}`,
    );
    // Act: more runs than the user may hold waits open
    const ended = [];
    for (let run = 0; run < 4; run++) ended.push(await durableRuns(api, owner).waitForStatus(await start(owner, script.id), 'completed'));
    // Assess
    for (const run of ended) expect((run.steps as Step[]).map((step) => [step.name, step.status])).toEqual([['cb', 'cancelled']]);
  });

  it("holds a user's open waits to the bound, refusing the next with DURABLE_LIMIT_EXCEEDED, and leaves other users alone", async () => {
    // Prepare
    const yearLong = `export async function handler(event, context) {
  await context.wait('year', { days: 365 });
  return { woke: true };
}`;
    const [mine, theirs] = await Promise.all([durable(owner, yearLong), durable(neighbour, yearLong)]);
    const waiting = [];
    for (let run = 0; run < 3; run++) waiting.push(await durableRuns(api, owner).waitForStatus(await start(owner, mine.id), 'waiting'));
    // Act
    const refused = await durableRuns(api, owner).waitForStatus(await start(owner, mine.id), 'failed');
    const neighbours = await durableRuns(api, neighbour).waitForStatus(await start(neighbour, theirs.id), 'waiting');
    await api.as(owner.apiKey).post(`/api/sdk/v1/executions/${waiting[0].executionId}/cancel`);
    const afterCancel = await durableRuns(api, owner).waitForStatus(await start(owner, mine.id), 'waiting');
    // Assess
    expect(refused.error.code).toBe('DURABLE_LIMIT_EXCEEDED');
    expect(refused.error.message).toContain('at most 3 waits');
    expect(neighbours.status).toBe('waiting');
    expect(afterCancel.steps.map((step: Step) => step.status)).toEqual(['waiting']);
  });

  it('refuses a wait opened through the #durable channel around the step API', async () => {
    // Prepare
    const script = await durable(
      owner,
      `export async function handler(event, context) {
  try {
    await resources['#durable'].wait({ kind: 'wait', name: 'sneaked', args: { duration: 31536000 } });
    return { opened: true };
  } catch (error) {
    return { refused: error.code };
  }
}`,
    );
    // Act
    const finished = await durableRuns(api, owner).waitForStatus(await start(owner, script.id), 'completed');
    // Assess
    expect(finished.output).toEqual({ refused: 'RESOURCE_NOT_ALLOWED' });
    expect(finished.steps).toEqual([]);
  });
});
