// The interface's 10 concurrent executions per script on AWS: a lease item in DynamoDB Local shared by every function.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Clock } from '../../functions/platform/clock.js';
import { newId } from '../../functions/platform/ids.js';
import { type RunLeases, createRunLeases } from '../../functions/scripts/runs/run-leases.js';

let leases: RunLeases;
let now = Date.UTC(2026, 2, 1, 12, 0, 0);
const clock: Clock = { now: () => now, nowIso: () => new Date(now).toISOString() };

beforeAll(() => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
  leases = createRunLeases({ clock });
});

const holdMs = 60_000;
const runs = (count: number) => Array.from({ length: count }, () => newId('exe'));

describe('scripts: concurrent runs on AWS', () => {
  it('lets ten runs of a script start at once and refuses the eleventh with CONCURRENCY_LIMIT, other scripts unaffected', async () => {
    // Prepare
    const scriptId = newId('scr');
    const eleven = runs(11);
    // Act
    const started = await Promise.allSettled(eleven.map((executionId) => leases.acquire(scriptId, executionId, holdMs)));
    const [otherScript] = await Promise.allSettled([leases.acquire(newId('scr'), newId('exe'), holdMs)]);
    // Assess
    expect(started.filter((result) => result.status === 'fulfilled')).toHaveLength(10);
    expect(started.filter((result) => result.status === 'rejected')).toEqual([
      { status: 'rejected', reason: expect.objectContaining({ code: 'CONCURRENCY_LIMIT', status: 429, details: expect.objectContaining({ scriptId }) }) },
    ]);
    expect(otherScript!.status).toBe('fulfilled');
  });

  it('gives a place back when a run ends, and only once', async () => {
    // Prepare
    const scriptId = newId('scr');
    const ten = runs(10);
    await Promise.all(ten.map((executionId) => leases.acquire(scriptId, executionId, holdMs)));
    // Act
    await leases.release(scriptId, ten[0]!);
    await leases.release(scriptId, ten[0]!);
    const [next, eleventh] = await Promise.allSettled([leases.acquire(scriptId, newId('exe'), holdMs), leases.acquire(scriptId, newId('exe'), holdMs)]);
    // Assess
    expect([next!.status, eleventh!.status].sort()).toEqual(['fulfilled', 'rejected']);
  });

  it('frees the places of runs whose lease lapsed (their function died without releasing)', async () => {
    // Prepare
    const scriptId = newId('scr');
    await Promise.all(runs(10).map((executionId) => leases.acquire(scriptId, executionId, holdMs)));
    const [whileHeld] = await Promise.allSettled([leases.acquire(scriptId, newId('exe'), holdMs)]);
    // Act
    now += holdMs + 1;
    const afterLapse = await Promise.allSettled(runs(10).map((executionId) => leases.acquire(scriptId, executionId, holdMs)));
    // Assess
    expect(whileHeld!.status).toBe('rejected');
    expect(afterLapse.every((result) => result.status === 'fulfilled')).toBe(true);
  });
});
