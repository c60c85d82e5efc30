// The resource-call function of Lambda-deployed scripts against DynamoDB Local and a real upstream: it calls with the
// run user's installation under a signed grant, keeps the run's tally, and refuses what the grant does not cover.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scriptGrantKey } from '../../functions/adapters/script-grant-key.js';
import { handler } from '../../functions/app/scripts/handlers/script-resource-call.js';
import { type RunGrant, signGrant } from '../../functions/scripts/runs/run-grant.js';
import { type RunTallies, createRunTallies } from '../../functions/scripts/runs/run-tallies.js';
import { type Upstream, startUpstream } from '../support/resources.js';
import { type CallableResource, givenCallableResource, runGrant, useLocalServices } from '../support/script-resource-calls.js';

let upstream: Upstream;
let resource: CallableResource;
let tallies: RunTallies;

beforeAll(async () => {
  useLocalServices();
  tallies = createRunTallies();
  upstream = await startUpstream();
  resource = await givenCallableResource(upstream.baseUrl);
});
afterAll(() => upstream.close());

const tokenFor = async (grant: RunGrant, exp = grant.startedAt + 60_000) => signGrant(grant, exp, await scriptGrantKey());
const allowed = (overrides: Partial<RunGrant> = {}) => runGrant(resource.userId, { allowedResources: [resource.name], ...overrides });

describe('scripts: resource calls of Lambda-deployed scripts', () => {
  it("calls the resource with the run user's credentials, answers its data and tallies the call and its cost", async () => {
    // Prepare
    const grant = allowed();
    const token = await tokenFor(grant);
    // Act
    const answer = await handler({ token, resource: resource.name, method: 'getForecast', params: { city: 'Oslo' } });
    const usage = await tallies.close(grant.executionId);
    // Assess
    expect(answer).toEqual({ ok: true, data: { ok: true, path: '/forecast/Oslo' } });
    expect(upstream.received.at(-1)).toMatchObject({ url: '/forecast/Oslo', headers: { 'x-api-key': resource.apiKey } });
    expect(usage).toEqual({ calls: 1, cost: 0.01, stoppedForCost: false });
  });

  it('refuses a resource outside allowedResources, an expired grant and a forged one, calling and tallying nothing', async () => {
    // Prepare
    const grant = allowed();
    const calls = upstream.received.length;
    const call = (token: string, name = resource.name) => handler({ token, resource: name, method: 'getForecast', params: { city: 'Oslo' } });
    const forged = (await tokenFor(grant)).replace(/\.[^.]+$/, '.AAAA');
    const asOtherUser = await tokenFor(runGrant('usr_other', { allowedResources: [resource.name] }));
    // Act
    const answers = await Promise.all([
      call(await tokenFor(grant), 'bank'),
      call(await tokenFor({ ...grant, startedAt: Date.now() - 120_000 }, Date.now() - 1)),
      call(forged),
      call('not-a-grant'),
    ]);
    const otherUser = await call(asOtherUser);
    const usage = await tallies.close(grant.executionId);
    // Assess
    expect(answers).toEqual([
      { ok: false, error: { code: 'RESOURCE_NOT_ALLOWED', message: "resource bank is not in this script's config.allowedResources" } },
      { ok: false, error: { code: 'UNAUTHORIZED', message: 'the run grant has expired: the run is over' } },
      { ok: false, error: { code: 'UNAUTHORIZED', message: 'the run grant is not signed by the platform' } },
      { ok: false, error: { code: 'UNAUTHORIZED', message: 'the run grant is missing or malformed' } },
    ]);
    // Another user's grant names the same resource, but that user never installed it.
    expect(otherUser).toMatchObject({ ok: false, error: { code: 'NOT_FOUND' } });
    expect(upstream.received.length).toBe(calls);
    expect(usage).toEqual({ calls: 0, cost: 0, stoppedForCost: false });
  });

  it('stops at the cost limit like a local run: calls until the allowance is used, then COST_LIMIT_EXCEEDED (or BUDGET_EXCEEDED)', async () => {
    // Prepare
    // The run's compute so far (a few ms) is what tips the third call over.
    const grant = allowed({ limitUsd: 0.02 });
    const onBudget = allowed({ limitUsd: 0.01, limitedBy: 'budget' });
    const [token, budgetToken] = await Promise.all([tokenFor(grant), tokenFor(onBudget)]);
    const call = (with_: string) => handler({ token: with_, resource: resource.name, method: 'getForecast', params: { city: 'Lima' } });
    // Act
    const answers = [await call(token), await call(token), await call(token), await call(budgetToken), await call(budgetToken)];
    const [usage, budgetUsage] = await Promise.all([tallies.close(grant.executionId), tallies.close(onBudget.executionId)]);
    // Assess
    expect(answers.map((answer) => (answer.ok ? 'ok' : answer.error.code))).toEqual(['ok', 'ok', 'COST_LIMIT_EXCEEDED', 'ok', 'BUDGET_EXCEEDED']);
    expect(usage).toEqual({ calls: 2, cost: 0.02, stoppedForCost: true });
    expect(budgetUsage).toEqual({ calls: 1, cost: 0.01, stoppedForCost: true });
  });

  it('prices compute from the start of the run: a run whose compute used the allowance makes no call', async () => {
    // Prepare
    const calls = upstream.received.length;
    const grant = allowed({ limitUsd: 0.001, memoryMb: 3008, startedAt: Date.now() - 60_000 });
    // Act
    const answer = await handler({
      token: await tokenFor(grant, Date.now() + 60_000),
      resource: resource.name,
      method: 'getForecast',
      params: { city: 'Rome' },
    });
    // Assess
    expect(answer).toEqual({ ok: false, error: { code: 'COST_LIMIT_EXCEEDED', message: 'this run has no cost allowance left for resource calls' } });
    expect(upstream.received.length).toBe(calls);
  });

  it('refuses calls of a run that has finished with FORBIDDEN, and bad input with VALIDATION_ERROR', async () => {
    // Prepare
    const grant = allowed();
    const token = await tokenFor(grant);
    await tallies.close(grant.executionId);
    const calls = upstream.received.length;
    // Act
    const late = await handler({ token, resource: resource.name, method: 'getForecast', params: { city: 'Oslo' } });
    const bad = await handler({ token, resource: resource.name, params: {} });
    // Assess
    expect(late).toMatchObject({ ok: false, error: { code: 'FORBIDDEN', message: expect.stringContaining('has finished') } });
    expect(bad).toMatchObject({ ok: false, error: { code: 'VALIDATION_ERROR', message: expect.stringContaining('method') } });
    expect(upstream.received.length).toBe(calls);
  });
});
