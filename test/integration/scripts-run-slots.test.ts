// The runner's RunSlots, the same contract in memory (local mode, one process) and over leases in DynamoDB Local (AWS):
// the interface's 10 runs per script, a tenant's share, `config.concurrency` per key value, and waiting for a turn.
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { newId } from '../../functions/platform/ids.js';
import { concurrencyClaim } from '../../functions/scripts/runs/concurrency-key.js';
import { createLeaseRunSlots } from '../../functions/scripts/runs/run-leases.js';
import { type RunSlots, type SlotClaim, createMemoryRunSlots } from '../../functions/scripts/runs/run-slots.js';

beforeAll(() => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
});

const claimOf = (scriptId: string, fields: Partial<SlotClaim> = {}): SlotClaim => ({
  executionId: newId('exe'),
  scriptId,
  userId: newId('usr'),
  holdMs: 60_000,
  ...fields,
});

/** One after another: racing takes are scripts-run-leases' test, not the setup of these. */
async function takeEach(slots: RunSlots, claims: SlotClaim[]) {
  for (const claim of claims) await slots.take(claim, 0);
}

/** The key part of a claim for `value`, as the runner builds it from a run's data (`global`: shared by every user). */
const keyOf = (value: string, limit: number, userId = newId('usr'), scope: 'user' | 'global' = 'global') =>
  concurrencyClaim({ limit, key: 'customerId', scope }, userId, { customerId: value });

const refusal = async (taking: Promise<void>) => (await Promise.allSettled([taking]))[0];

describe.each([
  { name: 'memory', slotsWithUserShare: (perUser: number) => createMemoryRunSlots({ perUser }) },
  { name: 'DynamoDB leases', slotsWithUserShare: (perUser: number) => createLeaseRunSlots({ perUser }) },
])('scripts: run slots ($name)', ({ slotsWithUserShare }) => {
  let slots: RunSlots;
  beforeAll(() => {
    slots = slotsWithUserShare(3);
  });

  it('lets ten runs of a script take slots and refuses the eleventh with CONCURRENCY_LIMIT at once; other scripts unaffected', async () => {
    // Prepare
    const scriptId = newId('scr');
    const ten = Array.from({ length: 10 }, () => claimOf(scriptId));
    await takeEach(slots, ten);
    // Act
    const eleventh = await refusal(slots.take(claimOf(scriptId), 0));
    const otherScript = await refusal(slots.take(claimOf(newId('scr')), 0));
    // Assess
    expect(eleventh).toMatchObject({ status: 'rejected', reason: { code: 'CONCURRENCY_LIMIT', status: 429, details: { scriptId } } });
    expect(otherScript.status).toBe('fulfilled');
  });

  it('gives a slot back when a run ends, and only once', async () => {
    // Prepare
    const scriptId = newId('scr');
    const ten = Array.from({ length: 10 }, () => claimOf(scriptId));
    await takeEach(slots, ten);
    // Act
    await slots.release(ten[0]!);
    await slots.release(ten[0]!);
    const next = await refusal(slots.take(claimOf(scriptId), 0));
    const eleventh = await refusal(slots.take(claimOf(scriptId), 0));
    // Assess
    expect([next.status, eleventh.status]).toEqual(['fulfilled', 'rejected']);
  });

  it("refuses a run of a user who holds its share, without taking the script's slot", async () => {
    // Prepare: the user's other runs hold all three of its slots.
    const userId = newId('usr');
    const scriptId = newId('scr');
    const held = Array.from({ length: 3 }, () => claimOf(newId('scr'), { userId }));
    for (const claim of held) await slots.take(claim, 0);
    // Act
    const refused = await refusal(slots.take(claimOf(scriptId, { userId }), 0));
    const scriptPlaces = await Promise.allSettled(Array.from({ length: 10 }, () => claimOf(scriptId)).map((claim) => slots.take(claim, 0)));
    // Assess
    expect(refused).toMatchObject({ status: 'rejected', reason: { code: 'CONCURRENCY_LIMIT', status: 429, details: { userId } } });
    expect(scriptPlaces.every((place) => place.status === 'fulfilled')).toBe(true);
  });

  it('lets a run that may wait start as soon as a slot frees', async () => {
    // Prepare
    const scriptId = newId('scr');
    const ten = Array.from({ length: 10 }, () => claimOf(scriptId));
    await takeEach(slots, ten);
    const waiting = claimOf(scriptId);
    let started = false;
    const taking = slots.take(waiting, 60_000).then(() => (started = true));
    // Act
    const beforeRelease = started;
    await slots.release(ten[3]!);
    await taking;
    // Assess
    expect(beforeRelease).toBe(false);
    expect(await refusal(slots.take(claimOf(scriptId), 0))).toMatchObject({ status: 'rejected' });
  });

  it('refuses a run that waited its whole wait, holding nothing', async () => {
    // Prepare
    const scriptId = newId('scr');
    const ten = Array.from({ length: 10 }, () => claimOf(scriptId));
    await takeEach(slots, ten);
    // Act
    const waitedOut = await refusal(slots.take(claimOf(scriptId), 150));
    await slots.release(ten[0]!);
    const afterRelease = await refusal(slots.take(claimOf(scriptId), 0));
    // Assess
    expect(waitedOut).toMatchObject({ status: 'rejected', reason: { code: 'CONCURRENCY_LIMIT' } });
    expect(afterRelease.status).toBe('fulfilled');
  });

  it('holds at most `limit` runs per key value, each key value apart, runs without the key sharing one value', async () => {
    // Prepare
    const scriptId = newId('scr');
    const keyed = (value: string) => claimOf(scriptId, { key: keyOf(value, 2) });
    await takeEach(slots, [keyed('acme'), keyed('acme'), keyed(''), keyed('')]);
    // Act
    const thirdAcme = await refusal(slots.take(keyed('acme'), 0));
    const thirdWithout = await refusal(slots.take(keyed(''), 0));
    const firstGlobex = await refusal(slots.take(keyed('globex'), 0));
    // Assess
    expect(thirdAcme).toMatchObject({ status: 'rejected', reason: { code: 'CONCURRENCY_LIMIT', details: { scriptId, concurrencyKey: 'acme' } } });
    expect(thirdWithout).toMatchObject({ status: 'rejected', reason: { code: 'CONCURRENCY_LIMIT' } });
    expect(firstGlobex.status).toBe('fulfilled');
  });

  it("counts a key value per run user unless the key is global: another user's runs of the value hold no slot of it", async () => {
    // Prepare: limit 1; the other tenant holds value acme under a per-user key and under a global one.
    const [perUser, global] = [newId('scr'), newId('scr')];
    const [tenant, customer] = [newId('usr'), newId('usr')];
    const run = (scriptId: string, userId: string, scope: 'user' | 'global') => claimOf(scriptId, { userId, key: keyOf('acme', 1, userId, scope) });
    await takeEach(slots, [run(perUser, tenant, 'user'), run(global, tenant, 'global')]);
    // Act
    const customerOwn = await refusal(slots.take(run(perUser, customer, 'user'), 0));
    const tenantSecond = await refusal(slots.take(run(perUser, tenant, 'user'), 0));
    const customerGlobal = await refusal(slots.take(run(global, customer, 'global'), 0));
    // Assess
    expect(customerOwn.status).toBe('fulfilled');
    expect(tenantSecond).toMatchObject({ status: 'rejected', reason: { code: 'CONCURRENCY_LIMIT', details: { concurrencyKey: 'acme' } } });
    expect(customerGlobal).toMatchObject({ status: 'rejected', reason: { code: 'CONCURRENCY_LIMIT', details: { concurrencyKey: 'acme' } } });
  });
});

describe('scripts: run slots in memory, waiting runs', () => {
  it('serves waiting runs first in, first out per key value and round-robin between key values', async () => {
    // Prepare: a script of 2 slots, both held; key A queues 20 runs, then key B one.
    const slots = createMemoryRunSlots({ perScript: 2 });
    const scriptId = newId('scr');
    const keyed = (value: string) => claimOf(scriptId, { key: keyOf(value, 10) });
    const holders = [keyed('A'), keyed('A')];
    for (const claim of holders) await slots.take(claim, 0);
    const started: string[] = [];
    const queued = Array.from({ length: 20 }, (_, index) => ({ name: `A${index}`, claim: keyed('A') }));
    queued.push({ name: 'B0', claim: keyed('B') });
    const takes = queued.map(({ name, claim }) => slots.take(claim, Number.POSITIVE_INFINITY).then(() => started.push(name)));
    // Act: each started run ends at once and frees its slot for the next.
    await slots.release(holders[0]!);
    await slots.release(holders[1]!);
    for (let next = 0; next < queued.length - 2; next++) {
      await new Promise((resolve) => setImmediate(resolve));
      const run = queued.find(({ name }) => name === started[next]);
      await slots.release(run!.claim);
    }
    await Promise.all(takes);
    // Assess
    expect(started.indexOf('B0')).toBeLessThanOrEqual(1);
    expect(started.filter((name) => name.startsWith('A'))).toEqual(queued.filter(({ name }) => name.startsWith('A')).map(({ name }) => name));
  });

  it('never runs more than `limit` of a key value at once, and runs every queued run in the end', async () => {
    // Prepare: 30 runs over 3 key values with limit 2, each ending a moment after it starts.
    const slots = createMemoryRunSlots();
    const scriptId = newId('scr');
    const active = new Map<string, number>();
    let peak = 0;
    let finished = 0;
    // Act
    await Promise.all(
      Array.from({ length: 30 }, async (_, index) => {
        const value = `customer-${index % 3}`;
        const claim = claimOf(scriptId, { key: keyOf(value, 2) });
        await slots.take(claim, Number.POSITIVE_INFINITY);
        active.set(value, (active.get(value) ?? 0) + 1);
        peak = Math.max(peak, active.get(value)!);
        await new Promise((resolve) => setImmediate(resolve));
        active.set(value, active.get(value)! - 1);
        await slots.release(claim);
        finished++;
      }),
    );
    // Assess
    expect(peak).toBe(2);
    expect(finished).toBe(30);
  });
});
