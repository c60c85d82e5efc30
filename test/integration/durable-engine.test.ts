// The durable engine against DynamoDB Local, as platform code uses it in process: runDurably replays stored steps,
// suspends at a wait, and a wait kind declared by another module is ended through resolveWait; the run continues
// through the resumer declared for its kind. The bus and the one-shots are the local adapters (timers off: the test ticks).
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { createLocalScheduler } from '../../functions/adapters/local/scheduler.js';
import { ValidationError } from '../../functions/platform/errors.js';
import type { PlatformEventInput } from '../../functions/platform/ports.js';
import { callbackWaitKind } from '../../functions/durable/callbacks.js';
import { type Resumer, createDurableEngine, timerWaitKind } from '../../functions/durable/engine.js';
import { runDurably } from '../../functions/durable/in-process.js';
import { createJournal } from '../../functions/durable/journal.js';
import { createFileBlobStore } from '../../functions/adapters/local/file-blob-store.js';
import { defaultDurableLimits } from '../../functions/durable/limits.js';
import type { WaitKind } from '../../functions/durable/wait-kinds.js';

/** Results this small stay in the journal: no blob is written. */
const journalResults = () => createFileBlobStore('script-packages');
import { durableWakeType } from '../../functions/durable/internal-events.js';

beforeAll(() => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
});

// The real time: DynamoDB Local deletes items past their TTL (`expiresAt`).
let clockMs = Date.now();
const clock = { now: () => clockMs, nowIso: () => new Date(clockMs).toISOString() };

/** An engine with the timer, the callback and `waitKinds`, whose bus hands wake-ups straight to its wakes with `resumers`, as the wake consumer does. */
function givenEngine(options: { limits?: typeof defaultDurableLimits; waitKinds?: Record<string, WaitKind>; resumers?: Record<string, Resumer> } = {}) {
  const journal = createJournal(journalResults);
  const published: PlatformEventInput[] = [];
  let wakes: (detail: { executionId: string; wait?: string; watch?: number }) => Promise<void>;
  const bus = {
    async publish(event: PlatformEventInput) {
      published.push(event);
      if (event.type === durableWakeType) await wakes(event as unknown as { executionId: string; wait?: string; watch?: number });
      return { eventId: `evt_${published.length}` };
    },
  };
  const oneShots = createLocalScheduler({ clock, publish: (event) => bus.publish(event), heartbeat: false });
  const engine = createDurableEngine({
    journal,
    limits: options.limits ?? defaultDurableLimits,
    oneShots,
    bus,
    clock,
    waitKinds: { wait: timerWaitKind, callback: callbackWaitKind(() => 'http://127.0.0.1:1'), ...options.waitKinds },
  });
  wakes = engine.wakes(options.resumers ?? {});
  return { engine, journal, oneShots };
}

const owner = () => ({ executionId: `exe_${Math.random().toString(36).slice(2, 12)}`, userId: 'usr_durable', scriptId: 'scr_none' });

describe('durable engine: in-process runs', () => {
  it('replays stored steps, suspends at a declared wait kind, and resumes when it is resolved', async () => {
    // Prepare
    const run = owner();
    const sideEffects: string[] = [];
    const approvals: string[] = [];
    const approval: WaitKind = {
      type: 'approval',
      onTimeout: 'timeout',
      async open(_owner, name, args) {
        if (typeof (args as { message?: unknown }).message !== 'string') throw new ValidationError('message', args, 'message is required');
        approvals.push(name);
        return { timeoutSeconds: 3600, fields: { approvalId: `apr_${name}` } };
      },
    };
    const outcomes: unknown[] = [];
    const body = async (context: Parameters<Parameters<typeof runDurably>[3]>[0]) => {
      const drafted = await context.step('draft', async () => {
        sideEffects.push('draft');
        return { text: 'hello' };
      });
      const decision = await context.waitFor<{ decision: string }>('approval', 'ask', { message: 'send it?' });
      return { drafted, decision };
    };
    const { engine, journal } = givenEngine({
      waitKinds: { approval },
      resumers: { agent: async (item) => void outcomes.push(await runDurably(engine, run, item.invocation, body)) },
    });
    await engine.begin({ ...run, runner: 'agent', payload: '{}', state: 'running' });
    // Act
    const first = await runDurably(engine, run, 1, body);
    const resolved = await engine.resolveWait(run.executionId, 'ask', { result: { decision: 'approve' } });
    const again = await engine.resolveWait(run.executionId, 'ask', { result: { decision: 'reject' } });
    // Assess
    expect(first).toEqual({ suspended: true });
    expect(resolved).toBe(true);
    expect(again).toBe(false);
    expect(outcomes).toEqual([{ suspended: false, value: { drafted: { text: 'hello' }, decision: { decision: 'approve' } } }]);
    expect(sideEffects).toEqual(['draft']);
    expect(approvals).toEqual(['ask']);
    const { run: item, entries } = await journal.read(run.executionId);
    expect(item?.state).toBe('finished');
    expect(entries.map((entry) => [entry.name, entry.type, entry.status])).toEqual([
      ['draft', 'step', 'succeeded'],
      ['ask', 'approval', 'succeeded'],
    ]);
  });

  it('throws TIMEOUT into the body when a wait times out, and refuses bad wait arguments without journaling', async () => {
    // Prepare
    const run = owner();
    const outcomes: unknown[] = [];
    const body = async (context: Parameters<Parameters<typeof runDurably>[3]>[0]) => {
      let refused = '';
      try {
        await context.wait('bad', { days: 400 });
      } catch (error) {
        refused = (error as { code: string }).code;
      }
      try {
        await context.waitForCallback('reply', async () => undefined, { timeout: { seconds: 30 } });
        return { refused, timedOut: false };
      } catch (error) {
        return { refused, timedOut: (error as { code: string }).code };
      }
    };
    const { engine, journal, oneShots } = givenEngine({
      resumers: { timeouts: async (item) => void outcomes.push(await runDurably(engine, run, item.invocation, body)) },
    });
    await engine.begin({ ...run, runner: 'timeouts', payload: '{}', state: 'running' });
    // Act
    const first = await runDurably(engine, run, 1, body);
    clockMs += 31_000;
    const fired = await oneShots.fireOneShots();
    // Assess
    expect(first).toEqual({ suspended: true });
    expect(fired).toBe(1);
    expect(outcomes).toEqual([{ suspended: false, value: { refused: 'DURABLE_INVALID_ARGUMENT', timedOut: 'TIMEOUT' } }]);
    expect((await journal.read(run.executionId)).entries.map((entry) => entry.name)).toEqual(['reply']);
  });

  it('closes the waits a run left open when it ends: cancelled in the journal, and their kind told why', async () => {
    // Prepare: a wait opened without suspending (as a script can through its #durable channel), then the run ends.
    const run = owner();
    const closed: Array<[string, string]> = [];
    const { engine, journal } = givenEngine({
      waitKinds: {
        approval: {
          type: 'approval',
          onTimeout: 'timeout',
          open: async () => ({ timeoutSeconds: 3600 }),
          close: async (entry, reason) => void closed.push([entry.name, reason]),
        },
      },
    });
    await engine.begin({ ...run, runner: 'agent', payload: '{}', state: 'running' });
    await engine.checkpoint(run, 'wait', { kind: 'approval', name: 'left-open', args: {} });
    // Act
    const finished = await engine.finished(run.executionId, 1);
    // Assess
    expect(finished).toBe(true);
    expect((await journal.read(run.executionId)).entries.map((entry) => [entry.name, entry.status])).toEqual([['left-open', 'cancelled']]);
    expect(closed).toEqual([['left-open', `its run ${run.executionId} ended`]]);
    expect(await engine.resolveWait(run.executionId, 'left-open', { result: { decision: 'approve' } })).toBe(false);
  });

  it("refuses a wait past the run's open waits, records the bound on the run, and closes its waits when it is cancelled", async () => {
    // Prepare
    const { engine, journal, oneShots } = givenEngine({ limits: { ...defaultDurableLimits, maxOpenWaitsPerRun: 2 } });
    const run = owner();
    await engine.begin({ ...run, runner: 'none', payload: '{}', state: 'running' });
    await engine.checkpoint(run, 'wait', { kind: 'callback', name: 'a' });
    await engine.checkpoint(run, 'wait', { kind: 'callback', name: 'b' });
    // Act
    const refused = await engine.checkpoint(run, 'wait', { kind: 'callback', name: 'c' }).catch((error: unknown) => error);
    const cancelled = await engine.cancel(run.executionId);
    // Assess
    expect(refused).toMatchObject({ code: 'DURABLE_LIMIT_EXCEEDED', details: { limit: 'openWaitsPerRun', max: 2 } });
    expect((await engine.failure(run.executionId))?.code).toBe('DURABLE_LIMIT_EXCEEDED');
    expect(cancelled).toBe(true);
    const { run: item, entries } = await journal.read(run.executionId);
    expect(entries.map((entry) => [entry.name, entry.status])).toEqual([
      ['a', 'cancelled'],
      ['b', 'cancelled'],
    ]);
    expect(item?.openWaits).toBe(0);
    expect(oneShots.pendingOneShots().filter((once) => once.name.includes(run.executionId))).toEqual([]);
  });

  it('ends an in-process run past its steps failed with DURABLE_LIMIT_EXCEEDED, though its body caught the refusal', async () => {
    // Prepare
    const { engine, journal } = givenEngine({ limits: { ...defaultDurableLimits, maxSteps: 2 } });
    const run = owner();
    await engine.begin({ ...run, runner: 'none', payload: '{}', state: 'running' });
    const body = async (context: Parameters<Parameters<typeof runDurably>[3]>[0]) => {
      for (const name of ['one', 'two', 'three']) await context.step(name, async () => name).catch(() => undefined);
      return 'done';
    };
    // Act
    const ended = await runDurably(engine, run, 1, body).catch((error: unknown) => error);
    // Assess
    expect(ended).toMatchObject({ code: 'DURABLE_LIMIT_EXCEEDED' });
    const { run: item, entries } = await journal.read(run.executionId);
    expect(item?.state).toBe('finished');
    expect(entries.map((entry) => entry.name)).toEqual(['one', 'two']);
  });

  it('refuses a wait of an unknown kind without taking a place for it', async () => {
    // Prepare
    const { engine, journal } = givenEngine();
    const run = owner();
    await engine.begin({ ...run, runner: 'none', payload: '{}', state: 'running' });
    // Act
    const refused = await engine.checkpoint(run, 'wait', { kind: 'teleport', name: 'x', args: {} }).catch((error: unknown) => error);
    // Assess
    expect(refused).toMatchObject({ code: 'DURABLE_UNKNOWN_KIND' });
    const { run: item, entries } = await journal.read(run.executionId);
    expect(entries).toEqual([]);
    expect(item?.openWaits ?? 0).toBe(0);
  });
});

describe('durable engine: in-process map and parallel', () => {
  it('runs branches at most maxConcurrency at once, frees the place of a waiting one, and repeats no finished branch on resume', async () => {
    // Prepare
    const { engine, journal } = givenEngine({
      resumers: { fan: async (item) => void outcomes.push(await runDurably(engine, run, item.invocation, body)) },
    });
    const run = owner();
    const ran: number[] = [];
    let running = 0;
    let mostAtOnce = 0;
    const outcomes: unknown[] = [];
    const body = async (context: Parameters<Parameters<typeof runDurably>[3]>[0]) => {
      const doubled = await context.map(
        'fan',
        [1, 2, 3, 4, 5],
        async (branch, item, index) => {
          const value = await branch.step('double', async () => {
            running += 1;
            mostAtOnce = Math.max(mostAtOnce, running);
            await new Promise((resolve) => setImmediate(resolve));
            running -= 1;
            ran.push(index);
            return item * 2;
          });
          if (index % 2 === 0) await branch.waitForCallback('reply', async () => undefined);
          return value;
        },
        { maxConcurrency: 2 },
      );
      const both = await context.parallel('both', [async () => 'a', async (branch) => branch.step('b', async () => 'b')]);
      return { doubled, both };
    };
    await engine.begin({ ...run, runner: 'fan', payload: '{}', state: 'running' });
    // Act
    const first = await runDurably(engine, run, 1, body);
    const callbacks = (await journal.read(run.executionId)).entries.filter((entry) => entry.type === 'callback');
    for (const callback of callbacks) await engine.resolveWait(run.executionId, callback.name, { result: 'ok' });
    // Assess
    expect(first).toEqual({ suspended: true });
    expect(callbacks.map((entry) => entry.name)).toEqual(['fan/0/reply', 'fan/2/reply', 'fan/4/reply']);
    expect(outcomes.at(-1)).toEqual({ suspended: false, value: { doubled: [2, 4, 6, 8, 10], both: ['a', 'b'] } });
    expect(ran.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(mostAtOnce).toBeLessThanOrEqual(2);
    const entries = (await journal.read(run.executionId)).entries;
    expect(entries.find((entry) => entry.name === 'fan')).toMatchObject({ type: 'map', status: 'succeeded', context: '', position: 0 });
    expect(entries.find((entry) => entry.name === 'both')).toMatchObject({ type: 'parallel', context: '', position: 1 });
  });

  it('fails a resumed run whose body calls another operation than the journal holds with DURABLE_NONDETERMINISTIC', async () => {
    // Prepare
    const { engine } = givenEngine();
    const run = owner();
    let flipped = false;
    const body = async (context: Parameters<Parameters<typeof runDurably>[3]>[0]) => {
      const [one, two] = flipped ? ['second', 'first'] : ['first', 'second'];
      await context.step(one, async () => 1);
      await context.waitForCallback('reply', async () => undefined);
      await context.step(two, async () => 2);
    };
    await engine.begin({ ...run, runner: 'unused', payload: '{}', state: 'running' });
    await runDurably(engine, run, 1, body);
    flipped = true;
    // Act
    const replay = runDurably(engine, run, 1, body);
    // Assess
    await expect(replay).rejects.toMatchObject({
      code: 'DURABLE_NONDETERMINISTIC',
      details: { expected: { name: 'first', type: 'step' }, actual: { name: 'second', type: 'step' } },
    });
  });
});
