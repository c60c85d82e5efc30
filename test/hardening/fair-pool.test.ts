// One tenant cannot starve the others of the local worker pool: real sandboxed node workers, tenant A's runs held
// inside their handlers (each waits on a resource call the test answers), tenant B's runs admitted meanwhile, and
// waiting runs served by the workers their tenant holds, fewest first.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { type LocalScriptRuntime, createLocalScriptRuntime } from '../../functions/adapters/local/script-pool.js';
import { limits } from '../../functions/scripts/model.js';
import { prepareCode } from '../../functions/scripts/runs/prepare.js';
import type { InvokeRequest } from '../../functions/scripts/runs/runtime-port.js';

const heavyMb = limits.memoryMb.max;
const pools: LocalScriptRuntime[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.stop()));
});

/** Four workers and four heavy workers' memory: tenant A's four sleeping runs fill it. */
function smallPool(): LocalScriptRuntime {
  // A wait shorter than the test's timeout: an unfair pool refuses B with CONCURRENCY_LIMIT instead of hanging.
  const pool = createLocalScriptRuntime({
    python: 'python3',
    stageDir: mkdtempSync(join(tmpdir(), 'platform-stage-')),
    functionPrefix: 'platform-script-',
    idleMs: 60_000,
    maxWorkers: 4,
    maxTotalMemoryMb: 4 * heavyMb,
    slotWaitMs: 20_000,
  });
  pools.push(pool);
  return pool;
}

/** A run whose handler asks the platform for `resources.gate.wait` and returns the answer: it sleeps until the test answers. */
class HeldRun {
  entered = false;
  finished = false;
  private open!: () => void;
  private readonly opened = new Promise<void>((resolve) => (this.open = resolve));
  release = () => this.open();
  callResource = async () => {
    this.entered = true;
    await this.opened;
    return 'released';
  };
}

let counter = 0;
async function run(tenant: string, memoryMb: number, held?: HeldRun): Promise<InvokeRequest> {
  const code = held ? 'export async function handler() { return await resources.gate.wait({}); }' : 'export async function handler() { return "quick"; }';
  const prepared = await prepareCode('nodejs18', code, 'python3');
  const scriptId = `scr_fair${counter++}`;
  return {
    scriptId,
    version: 1,
    runtime: 'nodejs18',
    codeHash: `${scriptId}hash`,
    qualifier: 'live',
    code: async () => prepared,
    memoryMb,
    timeoutMs: 120_000,
    event: { data: {}, trigger: { type: 'manual', source: null, event: null } },
    context: { scriptId, executionId: `exe_${scriptId}`, userId: tenant, customization: {} },
    callResource: held ? held.callResource : async () => null,
    grant: {
      executionId: `exe_${scriptId}`,
      userId: tenant,
      scriptId,
      allowedResources: ['gate'],
      limitUsd: 1,
      limitedBy: 'cost',
      memoryMb,
      startedAt: Date.now(),
    },
  };
}

function invokeHeld(pool: LocalScriptRuntime, request: InvokeRequest, held: HeldRun) {
  return pool.invoke(request).then((outcome) => {
    held.finished = true;
    return outcome;
  });
}

describe('hardening: a fair local run pool', () => {
  it("admits and finishes another tenant's run while one tenant's sleeping runs fill the pool", async () => {
    // Prepare: tenant A fills every worker and all the memory with runs held in their handlers.
    const pool = smallPool();
    const sleepers = Array.from({ length: 4 }, () => new HeldRun());
    const requests = await Promise.all(sleepers.map((held) => run('usr_tenant_a', heavyMb, held)));
    const aRuns = requests.map((request, index) => invokeHeld(pool, request, sleepers[index]!));
    await vi.waitFor(() => expect(sleepers.every((held) => held.entered)).toBe(true), { timeout: 60_000, interval: 50 });
    // Act
    const bOutcome = await pool.invoke(await run('usr_tenant_b', 128));
    const aStillSleeping = sleepers.filter((held) => !held.finished).length;
    for (const held of sleepers) held.release();
    const aOutcomes = await Promise.all(aRuns);
    // Assess
    expect(bOutcome).toMatchObject({ status: 'success', outputJson: '"quick"' });
    expect(aStillSleeping).toBe(4);
    expect(aOutcomes.map((outcome) => outcome.outputJson)).toEqual(Array(4).fill('"released"'));
    console.log(`fair pool: tenant B's run finished while ${aStillSleeping} of tenant A's ${heavyMb} MB runs slept in a pool of 4 workers`);
  });

  it('gives a freed worker to the waiting tenant holding fewer workers, though the other tenant asked first', async () => {
    // Prepare: A holds three workers, B two (the last in the reserve); then A asks for a fourth and B for a third: both wait.
    const pool = smallPool();
    const aSleepers = Array.from({ length: 3 }, () => new HeldRun());
    const bSleepers = Array.from({ length: 2 }, () => new HeldRun());
    const sleeping: Array<Promise<unknown>> = [];
    for (const [tenant, sleepers] of [
      ['usr_tenant_a', aSleepers],
      ['usr_tenant_b', bSleepers],
    ] as const) {
      for (const held of sleepers) sleeping.push(invokeHeld(pool, await run(tenant, 128, held), held));
      await vi.waitFor(() => expect(sleepers.every((held) => held.entered)).toBe(true), { timeout: 60_000, interval: 50 });
    }
    const aQueued = new HeldRun();
    const aQueuedRun = invokeHeld(pool, await run('usr_tenant_a', 128, aQueued), aQueued);
    const bQueued = pool.invoke(await run('usr_tenant_b', 128));
    // Act: one run of each ends; A then holds two workers, B one, and the pool has room for one more.
    aSleepers[0]!.release();
    bSleepers[0]!.release();
    const bOutcome = await bQueued;
    const aQueuedEnteredBeforeB = aQueued.entered;
    for (const held of [...aSleepers, ...bSleepers, aQueued]) held.release();
    const rest = await Promise.all([...sleeping, aQueuedRun]);
    // Assess
    expect(bOutcome).toMatchObject({ status: 'success', outputJson: '"quick"' });
    expect(aQueuedEnteredBeforeB).toBe(false);
    expect(rest.map((outcome) => (outcome as { outputJson: string }).outputJson)).toEqual(Array(6).fill('"released"'));
  });

  it('still lets a lone tenant use every worker of the pool', async () => {
    // Prepare
    const pool = smallPool();
    const sleepers = Array.from({ length: 4 }, () => new HeldRun());
    const requests = await Promise.all(sleepers.map((held) => run('usr_tenant_a', 128, held)));
    // Act
    const runs = requests.map((request, index) => invokeHeld(pool, request, sleepers[index]!));
    await vi.waitFor(() => expect(sleepers.every((held) => held.entered)).toBe(true), { timeout: 60_000, interval: 50 });
    const atOnce = pool.workerCount();
    for (const held of sleepers) held.release();
    await Promise.all(runs);
    // Assess
    expect(atOnce).toBe(4);
  });
});
