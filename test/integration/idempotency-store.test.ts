// The idempotency middleware's record in DynamoDB Local: one claim at a time, a dead holder's claim taken over after
// its lease, an answer kept 24 hours, and a repeat that stops waiting for a holder that never answers.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { dynamoIdempotencyStore as store } from '../../functions/platform/idempotency-store.js';
import { newId } from '../../functions/platform/ids.js';
import { answerOnce } from '../../functions/platform/middlewares/idempotency.js';
import type { HttpEvent } from '../../functions/platform/middlewares/request-state.js';
import type { Route } from '../../functions/platform/route.js';

// Real time: DynamoDB Local deletes items whose TTL (expiresAt) has passed, which a fixed past date would be.
const start = Math.floor(Date.now() / 1000) * 1000;
const answer = { statusCode: 200, headers: { 'Content-Type': 'application/json' }, body: '{"success":true,"data":{"executionId":"exe_1"}}' };

beforeAll(() => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
});

describe('idempotency: the stored record', () => {
  it('lets one holder claim a key, refuses others while its lease lasts, and lets a new holder take a lapsed claim', async () => {
    // Prepare
    const key = newId('key');
    await store.claim(key, 'req-1', 'f', 30, start);
    // Act
    const whileHeld = await store.claim(key, 'req-2', 'f', 30, start + 29_000);
    const afterLease = await store.claim(key, 'req-3', 'f', 30, start + 31_000);
    const lateAnswer = store.answer(key, 'req-1', answer, start + 32_000);
    // Assess
    expect(whileHeld).toBe(false);
    expect(afterLease).toBe(true);
    await expect(lateAnswer).rejects.toThrow();
    expect(await store.get(key, start + 33_000)).toEqual({ state: 'claimed', fingerprint: 'f', leaseUntil: start / 1000 + 61 });
  });

  it('keeps an answer 24 hours, then lets the key be claimed again', async () => {
    // Prepare
    const key = newId('key');
    await store.claim(key, 'req-1', 'f', 30, start);
    await store.answer(key, 'req-1', answer, start);
    // Act
    const withinDay = await store.claim(key, 'req-2', 'f', 30, start + 23 * 3600_000);
    const kept = await store.get(key, start + 23 * 3600_000);
    const afterDay = await store.claim(key, 'req-3', 'f', 30, start + 24 * 3600_000 + 1000);
    // Assess
    expect(withinDay).toBe(false);
    expect(kept).toEqual({ state: 'answered', fingerprint: 'f', answer });
    expect(afterDay).toBe(true);
  });

  it("refuses to release another holder's claim", async () => {
    // Prepare
    const key = newId('key');
    await store.claim(key, 'req-1', 'f', 30, start);
    // Act
    await store.release(key, 'req-2');
    // Assess
    expect(await store.get(key, start)).toMatchObject({ state: 'claimed' });
  });
});

describe('idempotency: a repeat waiting for the first answer', () => {
  it('answers CONFLICT with inProgress once the bound passes while the first never answers, and runs nothing', async () => {
    // Prepare
    const route = { operation: 'executeScript', area: 'scripts', method: 'POST', path: '/x', auth: 'apiKey', summary: '', handler: '' } as Route;
    const key = newId('key');
    const event = { headers: { 'idempotency-key': key }, pathParameters: {} } as unknown as HttpEvent;
    const state = { route, requestId: 'req-2', caller: { userId: 'usr_1', keyId: 'k', scopes: ['*'] }, headers: {} };
    let now = start;
    await store.claim(`executeScript#usr_1#${key}`, 'req-1', 'another-body', 300, now);
    let ran = 0;
    // Act
    const repeat = answerOnce({
      route,
      kind: 'caller',
      state,
      event,
      input: {},
      rawBody: '{}',
      store,
      waitMs: 5_000,
      work: async () => {
        ran += 1;
        return answer;
      },
      now: () => now,
      pause: async (ms) => {
        now += ms;
      },
    });
    // Assess
    await expect(repeat).rejects.toMatchObject({ code: 'CONFLICT', status: 409, details: { field: 'Idempotency-Key', value: key, inProgress: true } });
    expect(ran).toBe(0);
  });
});
