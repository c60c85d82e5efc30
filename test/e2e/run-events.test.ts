// Following a run live over server-sent events, with real sandboxed workers and DynamoDB Local: the stream delivers the
// lines written after it opened, in order and none twice, through a durable wait and its resume, with the steps and
// status on the way and `end` last; a reconnect with Last-Event-ID resumes after that event. The typed client's
// followRun is the reader, as the console and the CLI use it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunEvent, followRun } from '../../clients/typescript/src/index.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
});
afterAll(async () => {
  await api.stop();
});

const waitsForGo = `export async function handler(event, context) {
  console.log('before the wait');
  await context.step('prepare', async () => { console.log('preparing'); return 1; });
  await context.waitForEvent('go', { eventType: 'custom.go', conditions: [{ field: 'data.runId', operator: 'equals', value: event.data.runId }], timeout: { minutes: 5 } });
  await context.step('finish', async () => { console.log('finishing'); return 2; });
  console.log('after the wait');
  return 'ok';
}`;

async function startWaitingRun() {
  const script = await givenDeployed(api, owner, { code: waitsForGo, config: { durable: true } });
  const runId = `go-${Date.now().toString(36)}`;
  const started = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: { runId } });
  expect(started.status).toBe(202);
  return { executionId: started.body.data.executionId as string, runId };
}

/** Reads events until `stop` says so or the stream ends, leaving the stream open; the ones read. */
async function readUntil(events: AsyncGenerator<RunEvent>, stop: (event: RunEvent) => boolean): Promise<RunEvent[]> {
  const read: RunEvent[] = [];
  for (let next = await events.next(); !next.done; next = await events.next()) {
    read.push(next.value);
    if (stop(next.value)) break;
  }
  return read;
}

const texts = (events: RunEvent[]) => events.flatMap((event) => (event.type === 'log' ? [event.text] : []));

describe('run events', () => {
  it('delivers the lines written after the stream opened, in order and once, across a wait and its resume, then ends', async () => {
    // Prepare
    const { executionId, runId } = await startWaitingRun();
    const client = { baseUrl: api.baseUrl, apiKey: owner.apiKey };
    const events = followRun(client, executionId);
    const beforeResume = await readUntil(events, (event) => event.type === 'status' && event.status === 'waiting');
    // Act: the run resumes only now, with the stream open.
    expect((await api.as(owner.apiKey).post('/api/sdk/v1/events', { type: 'custom.go', data: { runId } })).status).toBe(202);
    const afterResume = await readUntil(events, () => false);
    // Assess
    const all = [...beforeResume, ...afterResume];
    expect(texts(beforeResume)).toEqual(['before the wait', 'preparing']);
    expect(texts(afterResume)).toEqual(['before the wait', 'finishing', 'after the wait']);
    const logs = all.filter((event) => event.type === 'log');
    expect(logs.map((event) => event.index)).toEqual([0, 1, 2, 3, 4]);
    expect(logs.map((event) => [event.invocation, event.step])).toEqual([
      [1, undefined],
      [1, 'prepare'],
      [2, undefined],
      [2, 'finish'],
      [2, undefined],
    ]);
    const lastSteps = all.filter((event) => event.type === 'steps').at(-1);
    expect(lastSteps?.type === 'steps' && lastSteps.steps.map((step) => [step.name, step.status])).toEqual([
      ['prepare', 'succeeded'],
      ['go', 'succeeded'],
      ['finish', 'succeeded'],
    ]);
    expect(all.filter((event) => event.type === 'status').map((event) => event.type === 'status' && event.status)).toContain('completed');
    expect(all.at(-1)).toMatchObject({ type: 'end', status: 'completed', error: null });
    // Every event moves the position on, but `end`, which says where the run ended.
    const moves = all.filter((event) => event.type !== 'end');
    expect(new Set(moves.map((event) => event.id)).size).toBe(moves.length);
    expect(all.at(-1)?.id).toBe(all.at(-2)?.id);
  });

  it('resumes after the Last-Event-ID it is given: only what came after it', async () => {
    // Prepare
    const { executionId, runId } = await startWaitingRun();
    const client = { baseUrl: api.baseUrl, apiKey: owner.apiKey };
    await api.as(owner.apiKey).post('/api/sdk/v1/events', { type: 'custom.go', data: { runId } });
    const whole = await readUntil(followRun(client, executionId), () => false);
    const second = whole.filter((event) => event.type === 'log')[1]!;
    // Act
    const resumed = await readUntil(followRun(client, executionId, { lastEventId: second.id }), () => false);
    // Assess
    expect(texts(resumed)).toEqual(texts(whole).slice(2));
    const lastSteps = (events: RunEvent[]) => events.flatMap((event) => (event.type === 'steps' ? [event.steps] : [])).at(-1);
    expect(lastSteps(resumed)).toEqual(lastSteps(whole));
    expect(resumed.at(-1)).toMatchObject({ type: 'end', status: 'completed' });
  });
});
