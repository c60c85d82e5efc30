// Debounce and batch of a script's runs over HTTP on the local platform (windows long enough for a slow machine's burst): a burst of executes gives exactly the runs
// the option promises (debounce: one per key value, with its last event, maxWait honoured; batch: runs of at most
// maxSize with every event's data in arrival order, the rest closed by the timeout), and each execute answers 202 with
// the queued run that will run.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
});
afterAll(() => api.stop());

const returnsItsEvent = `export async function handler(event) { return { data: event.data, batch: event.batch ?? null }; }`;
const executeWith = (scriptId: string, data: unknown) => api.as(owner.apiKey).post(sdk('executeScript'), { scriptId, data });
const runOf = async (executionId: string) => (await api.as(owner.apiKey).get(`/api/sdk/v1/executions/${executionId}`)).body.data;
const runsOf = async (scriptId: string) =>
  (await api.as(owner.apiKey).get(`/api/sdk/v1/executions?scriptId=${scriptId}&limit=100`)).body.data.executions as Array<{
    executionId: string;
    status: string;
  }>;

/** Waits until every one of the runs has ended, and reads them. */
const endedRuns = (executionIds: string[]) =>
  vi.waitFor(
    async () => {
      const runs = await Promise.all(executionIds.map(runOf));
      for (const run of runs) expect(run.status).toBe('completed');
      return runs;
    },
    { timeout: 60_000, interval: 200 },
  );

describe('flow control: debounce', () => {
  it('runs once per key value with the last event of each burst', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { code: returnsItsEvent, config: { debounce: { period: { seconds: 10 }, key: 'customer' } } });
    // Act
    const answers = [];
    for (let n = 0; n < 8; n++) answers.push(await executeWith(script.id, { customer: n % 2 === 0 ? 'a' : 'b', n }));
    // Assess
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(202));
    expect(answers[0]!.body.data).toMatchObject({ status: 'queued', queue: { reason: 'debounce', key: 'a' } });
    const ids = [...new Set(answers.map((answer) => answer.body.data.executionId as string))];
    expect(ids).toHaveLength(2);
    const runs = await endedRuns(ids);
    expect(runs.map((run) => run.output.data).sort((x, y) => x.n - y.n)).toEqual([
      { customer: 'a', n: 6 },
      { customer: 'b', n: 7 },
    ]);
    expect(await runsOf(script.id)).toHaveLength(2);
  }, 120_000);

  it('starts by maxWait after the first event however long the period', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { code: returnsItsEvent, config: { debounce: { period: { hours: 1 }, maxWait: { hours: 1 } } } });
    const capped = await givenDeployed(api, owner, { code: returnsItsEvent, config: { debounce: { period: { seconds: 2 }, maxWait: { seconds: 2 } } } });
    // Act
    const first = await executeWith(script.id, { n: 1 });
    const cappedAnswers = [await executeWith(capped.id, { n: 1 }), await executeWith(capped.id, { n: 2 })];
    // Assess
    const windowOf = (answer: { body: { data: { queue: { until: string } } } }) => Date.parse(answer.body.data.queue.until);
    const created = Date.parse((await runOf(cappedAnswers[0]!.body.data.executionId)).createdAt);
    expect(windowOf(cappedAnswers[1]!) - created).toBeLessThanOrEqual(2000);
    expect(windowOf(first) - Date.parse((await runOf(first.body.data.executionId)).createdAt)).toBeGreaterThan(3_000_000);
    const [run] = await endedRuns([cappedAnswers[1]!.body.data.executionId]);
    expect(run.output.data).toEqual({ n: 2 });
    expect((await runOf(first.body.data.executionId)).status).toBe('queued');
  }, 120_000);
});

describe('flow control: batch', () => {
  it('gathers every event in arrival order into runs of maxSize, and the rest when the timeout comes', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, { code: returnsItsEvent, config: { batch: { maxSize: 5, timeout: { seconds: 15 } } } });
    // Act
    const answers = [];
    for (let n = 0; n < 12; n++) answers.push(await executeWith(script.id, { n }));
    // Assess
    expect(answers.map((answer) => answer.status)).toEqual(Array(12).fill(202));
    const ids = [...new Set(answers.map((answer) => answer.body.data.executionId as string))];
    expect(ids).toHaveLength(3);
    const runs = await endedRuns(ids);
    expect(runs.map((run) => run.output.batch)).toEqual([[0, 1, 2, 3, 4].map((n) => ({ n })), [5, 6, 7, 8, 9].map((n) => ({ n })), [{ n: 10 }, { n: 11 }]]);
    expect(await runsOf(script.id)).toHaveLength(3);
  }, 120_000);
});
