// The step API for platform code that runs in this process (an LLM flow's agent loop): the same journal, the same
// replay rules as scripts' `context.step` / `context.wait`. A wait ends the body by throwing Suspension, which
// `runDurably` turns into a suspended run; the resumer declared for the run calls `runDurably` again when the wait ends.
import type { ExecutionError } from './model.js';
import type { DurableEngine, HandedEntry } from './engine.js';
import { DurableError } from './errors.js';
import { durableErrorCodes } from './limits.js';
import type { WaitOwner } from './wait-kinds.js';

/** Thrown out of the body when it waits; a body that catches it still ends suspended. */
export class Suspension extends Error {
  constructor(readonly waitName: string) {
    super(`the run waits on ${waitName}`);
  }
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
  const checkpoint = async (method: 'step' | 'wait', params: Record<string, unknown>) => {
    try {
      return await engine.checkpoint(owner, method, params);
    } catch (error) {
      if (error instanceof DurableError && error.code === durableErrorCodes.limitExceeded) pastBound ??= { code: error.code, message: error.message };
      throw error;
    }
  };
  /** The entry of that name: from the journal handed over, or (held back or left out of it) from the engine. */
  const claim = async (name: string): Promise<HandedEntry | undefined> => {
    if (used.has(name)) throw new DurableError(durableErrorCodes.nameReused, `the name ${name} is used twice in this run`);
    used.add(name);
    const entry = Object.hasOwn(journal.entries, name) ? journal.entries[name] : undefined;
    if (entry?.held || (!entry && journal.partial)) return (await engine.entry(owner.executionId, name)) ?? undefined;
    return entry;
  };
  const settled = <R>(entry: HandedEntry, name: string): R => {
    if (entry.status === 'waiting') throw suspend(name);
    if (entry.error) throw fail(entry.error);
    if (entry.status === 'cancelled') throw new DurableError(durableErrorCodes.cancelled, `${name} was cancelled`);
    return (entry.result === undefined ? null : JSON.parse(entry.result)) as R;
  };
  async function openWait<R>(kind: string, name: string, args: unknown, afterOpen?: (reply: Record<string, unknown>) => Promise<void>): Promise<R> {
    const entry = await claim(name);
    if (entry) return settled<R>(entry, name);
    const reply = await checkpoint('wait', { kind, name, args });
    await afterOpen?.(reply);
    throw suspend(name);
  }
  const context: DurableContext = {
    executionId: owner.executionId,
    async step<R>(name: string, fn: () => Promise<R>): Promise<R> {
      const entry = await claim(name);
      if (entry) return settled<R>(entry, name);
      const started = Date.now();
      let value: R;
      try {
        value = await fn();
      } catch (error) {
        const failure = {
          code: (error as { code?: string }).code ?? durableErrorCodes.stepFailed,
          message: error instanceof Error ? error.message : String(error),
        };
        await checkpoint('step', { name, error: failure, durationMs: Date.now() - started });
        throw fail(failure);
      }
      const stored = await checkpoint('step', { name, result: value ?? null, durationMs: Date.now() - started });
      return JSON.parse(stored.result as string) as R;
    },
    wait: (name, duration) => openWait<void>('wait', name, { duration }),
    waitForCallback: (name, submitter, options) =>
      openWait('callback', name, options?.timeout ? { timeout: options.timeout } : {}, (reply) =>
        submitter(reply.callbackId as string, reply.callbackUrl as string),
      ),
    waitFor: (kind, name, args) => openWait(kind, name, args),
  };
  let value: T;
  try {
    value = await body(context);
  } catch (error) {
    if (suspendedOn === undefined) {
      await engine.finished(owner.executionId, invocation);
      throw error;
    }
  }
  if (pastBound) {
    await engine.finished(owner.executionId, invocation);
    throw fail(pastBound);
  }
  if (suspendedOn !== undefined) {
    await engine.suspended(owner.executionId, invocation);
    return { suspended: true };
  }
  await engine.finished(owner.executionId, invocation);
  return { suspended: false, value: value! };
}
