// The step API for platform code that runs in this process (an LLM flow's agent loop): the same journal, the same
// replay rules as scripts' `context.step` / `context.wait`. A wait ends the body by throwing Suspension, which
// `runDurably` turns into a suspended run; the resumer declared for the run calls `runDurably` again when the wait ends.
import type { ExecutionError } from './model.js';
import type { DurableEngine, HandedEntry } from './engine.js';
import { DurableError } from './errors.js';
import { durableErrorCodes, maxBranches } from './limits.js';
import type { WaitOwner } from './wait-kinds.js';

/** Thrown out of the body when it waits; a body that catches it still ends suspended. */
export class Suspension extends Error {
  constructor(readonly waitName: string) {
    super(`the run waits on ${waitName}`);
  }
}

export interface FanOutOptions {
  /** At most this many branches run at once (default 10). */
  maxConcurrency?: number;
}

export interface DurableContext {
  readonly executionId: string;
  step<T>(name: string, fn: () => Promise<T>): Promise<T>;
  wait(name: string, duration: { seconds?: number; minutes?: number; hours?: number; days?: number }): Promise<void>;
  waitForCallback<T>(
    name: string,
    submitter: (callbackId: string, callbackUrl: string) => Promise<void>,
    options?: { timeout?: Record<string, number> },
  ): Promise<T>;
  /** A wait of any registered kind (`approval`, `event`, ...): `args` as that kind's `open` takes them. */
  waitFor<T>(kind: string, name: string, args: unknown): Promise<T>;
  /** `fn(branch, item, index)` for each item, at most `maxConcurrency` at once; the results in input order. */
  map<I, R>(name: string, items: I[], fn: (branch: DurableContext, item: I, index: number) => Promise<R>, options?: FanOutOptions): Promise<R[]>;
  /** Each `fn(branch)`, at most `maxConcurrency` at once; the results in input order. */
  parallel<R>(name: string, fns: ((branch: DurableContext) => Promise<R>)[], options?: FanOutOptions): Promise<R[]>;
}

/** What a step or a wait threw, as the code sees it on every replay. */
const fail = (error: ExecutionError) => new DurableError(error.code, error.message);

/**
 * Runs `body` as invocation `invocation` of the run (begun with `engine.begin` and registered under its runner's
 * name): stored steps replay, new ones are checkpointed, and the first open wait suspends the run.
 */
export async function runDurably<T>(
  engine: DurableEngine,
  owner: WaitOwner,
  invocation: number,
  body: (context: DurableContext) => Promise<T>,
): Promise<{ suspended: true } | { suspended: false; value: T }> {
  const journal = await engine.invocationJournal(owner.executionId);
  const used = new Set<string>();
  // Set at the first wait: a body that catches the Suspension still ends the invocation as suspended.
  let suspendedOn: string | undefined;
  const suspend = (name: string) => {
    suspendedOn ??= name;
    return new Suspension(name);
  };
  // A checkpoint past one of the run's bounds: the run ends failed with it, whatever the body does with the refusal.
  let pastBound: ExecutionError | undefined;
  const checkpoint = async (method: 'step' | 'wait', params: Record<string, unknown>): Promise<Record<string, unknown>> => {
    try {
      return await engine.checkpoint(owner, method, params);
    } catch (error) {
      if (error instanceof DurableError && error.code === durableErrorCodes.limitExceeded) pastBound ??= { code: error.code, message: error.message };
      throw error;
    }
  };
  const recorded = new Map<string, { name: string; type: string }>();
  for (const [name, entry] of Object.entries(journal.entries))
    if (entry.position !== undefined) recorded.set(`${entry.context ?? ''}\u0000${entry.position}`, { name, type: entry.type });
  // The first departure from the journal's order: the run fails with it, whatever the body does with the error.
  let departure: DurableError | undefined;
  /** The entry of that name: from the journal handed over, or (held back or left out of it) from the engine. */
  const lookUp = async (name: string): Promise<HandedEntry | undefined> => {
    const entry = Object.hasOwn(journal.entries, name) ? journal.entries[name] : undefined;
    if (entry?.held || (!entry && journal.partial)) return (await engine.entry(owner.executionId, name)) ?? undefined;
    return entry;
  };
  const reserve = (name: string) => {
    if (used.has(name)) throw new DurableError(durableErrorCodes.nameReused, `the name ${name} is used twice in this run`);
    used.add(name);
  };
  const settled = <R>(entry: HandedEntry, name: string): R => {
    if (entry.status === 'waiting') throw suspend(name);
    if (entry.error) throw fail(entry.error);
    if (entry.status === 'cancelled') throw new DurableError(durableErrorCodes.cancelled, `${name} was cancelled`);
    return (entry.result === undefined ? null : JSON.parse(entry.result)) as R;
  };

  /** The operations of one context: the body's (prefix '') or a branch's (`<name>/<index>/`). */
  function scope(prefix: string): DurableContext {
    let position = 0;
    /** The operation's name in the run, where it was called, and its entry if the journal has one. */
    const claim = async (name: string, type: string) => {
      const full = prefix + name;
      reserve(full);
      const site = { context: prefix, position: position++ };
      const expected = recorded.get(`${prefix}\u0000${site.position}`);
      if (expected && (expected.name !== full || expected.type !== type)) {
        departure ??= new DurableError(
          durableErrorCodes.nondeterministic,
          `the run's journal holds ${expected.type} ${expected.name} at this place, but the code called ${type} ${full}`,
          { expected, actual: { name: full, type } },
        );
        throw departure;
      }
      return { full, site, entry: await lookUp(full) };
    };
    async function openWait<R>(kind: string, name: string, args: unknown, afterOpen?: (reply: Record<string, unknown>) => Promise<void>): Promise<R> {
      const { full, site, entry } = await claim(name, kind);
      if (entry) return settled<R>(entry, full);
      const reply = await checkpoint('wait', { kind, name: full, args, ...site });
      await afterOpen?.(reply);
      throw suspend(full);
    }

    /** Runs `count` branches, at most `maxConcurrency` at once; a waiting branch frees its place, a failure starts no further one. */
    async function fanOut<R>(
      type: 'map' | 'parallel',
      name: string,
      count: number,
      run: (branch: DurableContext, index: number) => Promise<R>,
      options?: FanOutOptions,
    ) {
      const max = options?.maxConcurrency ?? 10;
      if (count > maxBranches) throw new DurableError(durableErrorCodes.invalidArgument, `${type} ${name}: at most ${maxBranches} branches, not ${count}`);
      if (!Number.isInteger(max) || max < 1 || max > maxBranches)
        throw new DurableError(durableErrorCodes.invalidArgument, `${type} ${name}: maxConcurrency must be a whole number from 1 to ${maxBranches}`);
      const { full, site, entry } = await claim(name, type);
      if (entry) return settled<R[]>(entry, full);
      const results: unknown[] = new Array(count).fill(null);
      const failures = new Map<number, ExecutionError>();
      let parked: Suspension | undefined;
      let next = 0;
      const branch = async (index: number) => {
        const own = `${full}/${index}`;
        reserve(own);
        const stored = await lookUp(own);
        if (stored) {
          if (stored.error) failures.set(index, stored.error);
          else results[index] = stored.result === undefined ? null : JSON.parse(stored.result);
          return;
        }
        let value: R;
        try {
          value = await run(scope(`${own}/`), index);
        } catch (error) {
          if (error instanceof Suspension) parked = error;
          else if (departure) failures.set(index, departure);
          else {
            const failure = {
              code: (error as { code?: string }).code ?? durableErrorCodes.stepFailed,
              message: error instanceof Error ? error.message : String(error),
            };
            const kept = await checkpoint('step', { name: own, error: failure });
            failures.set(index, (kept.error as ExecutionError | null) ?? failure);
          }
          return;
        }
        const kept = await checkpoint('step', { name: own, result: value ?? null });
        results[index] = JSON.parse(kept.result as string);
      };
      const worker = async () => {
        while (next < count && failures.size === 0) await branch(next++);
      };
      await Promise.all(Array.from({ length: Math.min(max, count) }, worker));
      if (departure) throw departure;
      if (failures.size > 0) {
        const first = failures.get(Math.min(...failures.keys()))!;
        const kept = await checkpoint('step', { name: full, type, ...site, error: { code: first.code, message: first.message } });
        throw fail((kept.error as ExecutionError | null) ?? first);
      }
      if (parked) throw parked;
      const kept = await checkpoint('step', { name: full, type, ...site, result: results });
      return JSON.parse(kept.result as string) as R[];
    }

    return {
      executionId: owner.executionId,
      async step<R>(name: string, fn: () => Promise<R>): Promise<R> {
        const { full, site, entry } = await claim(name, 'step');
        if (entry) return settled<R>(entry, full);
        const started = Date.now();
        let value: R;
        try {
          value = await fn();
        } catch (error) {
          const failure = {
            code: (error as { code?: string }).code ?? durableErrorCodes.stepFailed,
            message: error instanceof Error ? error.message : String(error),
          };
          await checkpoint('step', { name: full, ...site, error: failure, durationMs: Date.now() - started });
          throw fail(failure);
        }
        const stored = await checkpoint('step', { name: full, ...site, result: value ?? null, durationMs: Date.now() - started });
        return JSON.parse(stored.result as string) as R;
      },
      wait: (name, duration) => openWait<void>('wait', name, { duration }),
      waitForCallback: (name, submitter, options) =>
        openWait('callback', name, options?.timeout ? { timeout: options.timeout } : {}, (reply) =>
          submitter(reply.callbackId as string, reply.callbackUrl as string),
        ),
      waitFor: (kind, name, args) => openWait(kind, name, args),
      map: (name, items, fn, options) => fanOut('map', name, items.length, (branch, index) => fn(branch, items[index]!, index), options),
      parallel: (name, fns, options) => fanOut('parallel', name, fns.length, (branch, index) => fns[index]!(branch), options),
    };
  }
  const context = scope('');
  let value: T;
  try {
    value = await body(context);
  } catch (error) {
    if (suspendedOn === undefined) {
      await engine.finished(owner.executionId, invocation);
      throw error;
    }
  }
  if (pastBound || departure) {
    await engine.finished(owner.executionId, invocation);
    throw pastBound ? fail(pastBound) : departure;
  }
  if (suspendedOn !== undefined) {
    await engine.suspended(owner.executionId, invocation);
    return { suspended: true };
  }
  await engine.finished(owner.executionId, invocation);
  return { suspended: false, value: value! };
}
