// What a run may call and spend: the signed grant Lambda-deployed scripts carry, and the rules every resource call of
// a run goes through (the same in process and in the resource-call function).
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NotFoundError } from '../../functions/platform/errors.js';
import type { ResourceCallRequest, ResourceCallResult } from '../../functions/platform/ports.js';
import { computeCostUsd } from '../../functions/scripts/runs/cost.js';
import { memoryTally, resourceGate } from '../../functions/scripts/runs/resource-gate.js';
import { type RunGrant, signGrant, verifyGrant } from '../../functions/scripts/runs/run-grant.js';

const key = randomBytes(32);
const now = Date.UTC(2026, 2, 1, 12, 0, 0);
const grant: RunGrant = {
  executionId: 'exe_1',
  userId: 'usr_a',
  scriptId: 'scr_1',
  allowedResources: ['weather'],
  limitUsd: 0.05,
  limitedBy: 'cost',
  memoryMb: 128,
  startedAt: now,
};

/** Re-encodes the claims without signing them again: what someone holding a token could try. */
function tampered(token: string, change: Partial<RunGrant & { exp: number }>): string {
  const [version, claims, signature] = token.split('.');
  const decoded = JSON.parse(Buffer.from(claims!, 'base64url').toString('utf8'));
  return [version, Buffer.from(JSON.stringify({ ...decoded, ...change })).toString('base64url'), signature].join('.');
}

describe('scripts: run grants', () => {
  it('verifies a grant signed with the key before it expires and gives back its claims', () => {
    // Prepare
    const token = signGrant(grant, now + 60_000, key);
    // Act
    const verified = verifyGrant(token, key, now + 59_999);
    // Assess
    expect(verified).toEqual({ ...grant, exp: now + 60_000 });
  });

  it('refuses a grant whose claims were changed (another user, another resource, a higher limit) with UNAUTHORIZED', () => {
    // Prepare
    const token = signGrant(grant, now + 60_000, key);
    const forged = [tampered(token, { userId: 'usr_b' }), tampered(token, { allowedResources: ['weather', 'bank'] }), tampered(token, { limitUsd: 100 })];
    // Act
    const attempts = forged.map((candidate) => () => verifyGrant(candidate, key, now));
    // Assess
    for (const attempt of attempts) expect(attempt).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED', message: expect.stringContaining('not signed') }));
  });

  it('refuses an expired grant, one signed with another key, and anything that is not a grant', () => {
    // Prepare
    const token = signGrant(grant, now + 60_000, key);
    const otherKey = signGrant(grant, now + 60_000, randomBytes(32));
    // Act
    const refusals = [
      () => verifyGrant(token, key, now + 60_000),
      () => verifyGrant(otherKey, key, now),
      () => verifyGrant(undefined, key, now),
      () => verifyGrant('v1.e30', key, now),
      () => verifyGrant(`v2${token.slice(2)}`, key, now),
    ];
    // Assess
    for (const refusal of refusals) expect(refusal).toThrow(expect.objectContaining({ code: 'UNAUTHORIZED' }));
    expect(refusals[0]).toThrow(/expired/);
  });
});

/** The ResourceCaller port: records requests and answers what it is told to. */
function fakeCaller(answer: (request: ResourceCallRequest) => ResourceCallResult) {
  const requests: ResourceCallRequest[] = [];
  return { requests, call: async (request: ResourceCallRequest) => (requests.push(request), answer(request)) };
}
const ok = (cost: number): ResourceCallResult => ({ status: 200, success: true, data: { ok: true }, cost, durationMs: 3 });

describe("scripts: the rules of a run's resource calls", () => {
  it("calls an allowed resource as the run's user, counts the call and adds its cost", async () => {
    // Prepare
    const tally = memoryTally();
    const caller = fakeCaller(() => ok(0.01));
    const call = resourceGate({ grant, tally, caller, elapsedMs: () => 10 });
    // Act
    const data = await call('weather', 'getForecast', { city: 'Oslo' });
    // Assess
    expect(data).toEqual({ ok: true });
    expect(caller.requests).toEqual([{ userId: 'usr_a', resource: 'weather', method: 'getForecast', params: { city: 'Oslo' }, source: 'script' }]);
    expect(tally.usage()).toEqual({ calls: 1, cost: 0.01, stoppedForCost: false });
  });

  it('refuses a resource outside allowedResources with RESOURCE_NOT_ALLOWED, calling and counting nothing', async () => {
    // Prepare
    const tally = memoryTally();
    const caller = fakeCaller(() => ok(0.01));
    const call = resourceGate({ grant, tally, caller, elapsedMs: () => 10 });
    // Act
    const refused = call('bank', 'transfer', {});
    // Assess
    await expect(refused).rejects.toMatchObject({ code: 'RESOURCE_NOT_ALLOWED', message: "resource bank is not in this script's config.allowedResources" });
    expect(caller.requests).toEqual([]);
    expect(tally.usage()).toEqual({ calls: 0, cost: 0, stoppedForCost: false });
  });

  it("refuses once the calls' cost and the compute so far reach the limit, naming the limit that binds, and marks the run as stopped", async () => {
    // Prepare
    const computeSoFar = computeCostUsd(1000, grant.memoryMb);
    const costLimited = { grant: { ...grant, limitUsd: 0.02 + computeSoFar }, tally: memoryTally() };
    const budgetLimited = { grant: { ...grant, limitUsd: 0.02 + computeSoFar, limitedBy: 'budget' as const }, tally: memoryTally() };
    const caller = fakeCaller(() => ok(0.01));
    const [byCost, byBudget] = [costLimited, budgetLimited].map(({ grant: limited, tally }) =>
      resourceGate({ grant: limited, tally, caller, elapsedMs: () => 1000 }),
    );
    // Act
    await byCost!('weather', 'getForecast', {});
    await byCost!('weather', 'getForecast', {});
    await byBudget!('weather', 'getForecast', {});
    await byBudget!('weather', 'getForecast', {});
    const [third, thirdOnBudget] = await Promise.allSettled([byCost!('weather', 'getForecast', {}), byBudget!('weather', 'getForecast', {})]);
    // Assess
    expect(third).toMatchObject({ status: 'rejected', reason: { code: 'COST_LIMIT_EXCEEDED' } });
    expect(thirdOnBudget).toMatchObject({ status: 'rejected', reason: { code: 'BUDGET_EXCEEDED' } });
    expect(costLimited.tally.usage()).toEqual({ calls: 2, cost: 0.02, stoppedForCost: true });
    expect(caller.requests).toHaveLength(4);
  });

  it('refuses the first call when compute alone has used the allowance', async () => {
    // Prepare
    const tally = memoryTally();
    const caller = fakeCaller(() => ok(0));
    const call = resourceGate({ grant: { ...grant, limitUsd: computeCostUsd(5000, grant.memoryMb) }, tally, caller, elapsedMs: () => 5000 });
    // Act
    const refused = call('weather', 'getForecast', {});
    // Assess
    await expect(refused).rejects.toMatchObject({ code: 'COST_LIMIT_EXCEEDED', message: 'this run has no cost allowance left for resource calls' });
    expect(caller.requests).toEqual([]);
    expect(tally.usage().stoppedForCost).toBe(true);
  });

  it("reports an upstream's failure as RESOURCE_CALL_FAILED and a platform refusal with its own code, both counted", async () => {
    // Prepare
    const tally = memoryTally();
    const caller = fakeCaller((request) => {
      if (request.method === 'missing') throw new NotFoundError('resource', 'weather', 'installed resource');
      return { status: 503, success: false, data: null, cost: 0, durationMs: 2 };
    });
    const call = resourceGate({ grant, tally, caller, elapsedMs: () => 10 });
    // Act
    const [failed, refused] = await Promise.allSettled([call('weather', 'getForecast', {}), call('weather', 'missing', {})]);
    // Assess
    expect(failed).toMatchObject({ status: 'rejected', reason: { code: 'RESOURCE_CALL_FAILED', message: 'resources.weather.getForecast answered HTTP 503' } });
    expect(refused).toMatchObject({ status: 'rejected', reason: { code: 'NOT_FOUND', message: 'installed resource weather not found' } });
    expect(tally.usage()).toEqual({ calls: 2, cost: 0, stoppedForCost: false });
  });
});
