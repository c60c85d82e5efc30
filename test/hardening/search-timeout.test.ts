// A request that outlives its bound must answer 504 TIMEOUT in the envelope, never a 500 "unhandled error", and a
// search that stopped waiting for a cold graph index must leave that index loading for the next search. The bound
// here is a setting (SEARCH_INDEX_WAIT_SECONDS=0: a search never waits for a cold load), not a 100,000-chunk graph.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpHandler } from '../../functions/platform/http.js';
import { defineRoutes } from '../../functions/platform/route.js';
import { mime, search, settled, upload } from '../support/documents.js';
import { httpEvent, lambdaContext } from '../support/lambda-event.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

let api: TestApi;
let user: TestUser;

beforeAll(async () => {
  process.env.SEARCH_INDEX_WAIT_SECONDS = '0';
  api = await startTestPlatform();
  user = await api.givenUser();
});
afterAll(async () => {
  delete process.env.SEARCH_INDEX_WAIT_SECONDS;
  await api.stop();
});

const question = { query: 'When can tourists visit the lighthouse?', threshold: 0 };

describe('timeouts: a handler out of time', () => {
  it('answers 504 TIMEOUT in the envelope when the function runs out of time, not a 500', async () => {
    // Prepare: a handler that finishes only when the test lets it, in a function with almost no time left.
    const routes = defineRoutes('test', { slowThing: { method: 'POST', path: '/slow', auth: 'public', summary: 'slow' } });
    let finish = () => {};
    const held = new Promise<void>((resolve) => (finish = resolve));
    const slow = httpHandler(routes.slowThing, async () => held.then(() => ({ done: true })));
    const nearlyOut = { ...lambdaContext, getRemainingTimeInMillis: () => 1 };
    // Act
    const result = await slow(httpEvent({ method: 'POST', path: '/slow', body: {} }), nearlyOut);
    finish();
    // Assess
    expect(result.statusCode).toBe(504);
    expect(JSON.parse(result.body!)).toMatchObject({ success: false, error: { code: 'TIMEOUT', message: expect.stringContaining('did not finish in time') } });
  });
});

describe('timeouts: a search of a graph whose index is still loading', () => {
  it('answers 504 TIMEOUT, and the load it started goes on so that a later search answers from it', async () => {
    // Prepare
    const uploaded = await upload(api, user, {
      bytes: 'The lighthouse on Cape Verde island is open to visitors on Saturdays from ten until four.',
      filename: 'lighthouse.txt',
      mimeType: mime.text,
    });
    expect((await settled(api, user, uploaded.body.data.documentId)).status).toBe('completed');
    // Act
    const cold = await search(api, user, question);
    // Every search that finds the load unfinished joins it (and answers TIMEOUT at once); one that answers 200 read the
    // index that load left. A load dropped at the first TIMEOUT would leave every search here starting a new one, and none answering.
    let answered = cold;
    for (let attempt = 0; attempt < 600 && answered.status === 504; attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      answered = await search(api, user, question);
    }
    // Assess
    expect(cold.status).toBe(504);
    expect(cold.body).toMatchObject({ success: false, error: { code: 'TIMEOUT', message: expect.stringContaining('still loading') } });
    expect(answered.status).toBe(200);
    expect(answered.body.data.results[0].content).toContain('Saturdays from ten until four');
  });
});
