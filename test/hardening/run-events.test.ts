// GET /api/sdk/v1/executions/{executionId}/events: a run's live stream is its owner's alone, a Last-Event-ID is a
// position this stream gave out or is refused before anything streams, and one API key holds at most 5 streams open
// (each polls the run), a closed one freeing its place.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { printAttackSummary } from '../support/attack-summary.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;
let stranger: TestUser;
let executionId: string;

printAttackSummary('run events');

beforeAll(async () => {
  api = await startTestPlatform();
  [owner, stranger] = await Promise.all([api.givenUser(), api.givenUser()]);
  const script = await givenDeployed(api, owner, {
    code: `export async function handler(event, context) { await context.wait('long', { hours: 1 }); }`,
    config: { durable: true },
  });
  const started = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: {} });
  expect(started.body.data.status).toBe('waiting');
  executionId = started.body.data.executionId;
});
afterAll(async () => {
  await api.as(owner.apiKey).post(`/api/sdk/v1/executions/${executionId}/cancel`);
  await api.stop();
});

/** Opens the stream; the answer once its headers came, and how to close it. */
async function openStream(apiKey: string, id = executionId, headers: Record<string, string> = {}) {
  const closer = new AbortController();
  const response = await fetch(`${api.baseUrl}/api/sdk/v1/executions/${encodeURIComponent(id)}/events`, {
    headers: { 'X-API-Key': apiKey, Accept: 'text/event-stream', ...headers },
    signal: closer.signal,
  });
  return { response, close: () => closer.abort() };
}

const refusal = async (response: Response) => ({
  status: response.status,
  body: (await response.json()) as { error: { code: string; details?: Record<string, unknown> } },
});

describe('hardening: run event streams', () => {
  it('streams the run to its owner and answers another tenant NOT_FOUND, as for an unknown id', async () => {
    // Act
    const mine = await openStream(owner.apiKey);
    const theirs = await openStream(stranger.apiKey);
    const unknown = await openStream(stranger.apiKey, 'exe_doesnotexist');
    // Assess
    expect(mine.response.status).toBe(200);
    expect(mine.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    const reader = mine.response.body!.pipeThrough(new TextDecoderStream()).getReader();
    let received = '';
    while (!received.includes('event: status')) received += (await reader.read()).value ?? '';
    expect(received).toContain('"status":"waiting"');
    mine.close();
    expect(await refusal(theirs.response)).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(await refusal(unknown.response)).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  });

  it.each([
    ['a word', 'abc'],
    ['a path', '../../1.-.-'],
    ['too many lines', '99999999.-.-'],
    ['a status that is no word', '1.-.RUNNING;'],
    ['a long id', `1.-.${'a'.repeat(4000)}`],
  ])('refuses a Last-Event-ID that is %s with VALIDATION_ERROR naming lastEventId', async (_what, lastEventId) => {
    // Act
    const { response } = await openStream(owner.apiKey, executionId, { 'Last-Event-ID': lastEventId });
    // Assess
    const { status, body } = await refusal(response);
    expect(status).toBe(400);
    expect(body.error.code).toBe('VALIDATION_ERROR');
    expect(body.error.details?.field).toBe('lastEventId');
    expect(String(body.error.details?.value).length).toBeLessThanOrEqual(64);
  });

  it('holds at most 5 open streams per API key, and a closed one frees its place', async () => {
    // Prepare
    const key = (await api.as(owner.apiKey).post('/api/sdk/v1/keys', { name: 'streams' })).body.data.apiKey as string;
    const open = [];
    for (let index = 0; index < 5; index++) open.push(await openStream(key));
    // Act
    const sixth = await openStream(key);
    const otherKey = await openStream(owner.apiKey);
    // Assess
    expect(open.map((stream) => stream.response.status)).toEqual([200, 200, 200, 200, 200]);
    expect(sixth.response.headers.get('retry-after')).toBeTruthy();
    expect(await refusal(sixth.response)).toMatchObject({ status: 429, body: { error: { code: 'RATE_LIMITED' } } });
    expect(otherKey.response.status).toBe(200);
    otherKey.close();
    open[0]!.close();
    const again = await vi.waitFor(
      async () => {
        const attempt = await openStream(key);
        expect(attempt.response.status).toBe(200);
        return attempt;
      },
      { timeout: 10_000, interval: 100 },
    );
    for (const stream of [...open.slice(1), again]) stream.close();
  });
});
