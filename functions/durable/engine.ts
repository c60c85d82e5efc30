// The durable-run engine: replay over a journal. An invocation gets the run's journal; a finished step's result
// comes back from it instead of running again; each step's result is checkpointed as soon as the step ends; a wait
// is checkpointed and ends the invocation (the run is then `waiting` and holds no worker, no Lambda and no slot).
// A wait ends through `resolveWait` (a callback, an approval, an event) or its one-shot timer; the run then
// continues in a new invocation of the same execution, through the resumer declared for its kind (`engine.wakes`).
import { createHash } from 'node:crypto';
import * as z from 'zod';
import type { Clock } from '#platform/clock.js';
import { ValidationError } from '#platform/errors.js';
import { DurableError } from './errors.js';
import type { EventPublisher, SchedulerPort } from '#platform/ports.js';
import type { ExecutionError } from './model.js';
import { durableWakeType, retryName, waitTimerName, watchdogName } from './internal-events.js';
import type { Journal, JournalEntry, Refusal, RunItem, RunState } from './journal.js';
import {
  Duration,
  type DurableLimits,
  StepName,
  durableErrorCodes,
  durableProtocol,
  handedJournalBytes,
  maxEntryNameLength,
  maxWaitSeconds,
  unstorableResult,
} from './limits.js';
import type { WaitKind, WaitOutcome, WaitOwner } from './wait-kinds.js';

/** An entry as an invocation gets it: its result as JSON text, or `held` when the runtime asks for it (`entry`). */
export interface HandedEntry {
  type: JournalEntry['type'];
  status: JournalEntry['status'];
  result?: string;
  error?: ExecutionError;
  held?: true;
  /** Where the code called it (its context and place there): the determinism guard compares a resumed invocation's calls with these. */
  context?: string;
  position?: number;
}

/**
 * The journal as an invocation gets it, by name, within handedJournalBytes: results past that are `held`, and
 * entries past it are left out (`partial`); the runtime asks for either with the `entry` checkpoint.
 */
export interface InvocationJournal {
  entries: Record<string, HandedEntry>;
  partial?: true;
}

/** Continues a run in a new invocation; declared per kind of run (`script`, or an in-process runner's name). */
export type Resumer = (run: RunItem) => Promise<void>;

/** The bus delivery of a wake-up: a wait's timer or timeout (`wait`), a lapsed lease (`watch`), or a run to continue. */
export interface WakeDetail {
  executionId: string;
  wait?: string;
  watch?: number;
}

const { maxErrorCodeLength, maxErrorMessageLength, maxKindLength } = durableProtocol.limits;

/** Where in the code an operation was called: its context (the handler's, or a branch's) and its place there. */
const CallSite = {
  context: z.string().max(maxEntryNameLength).optional(),
  position: z.number().int().min(0).max(1_000_000).optional(),
};
const StepCheckpoint = z.strictObject({
  name: StepName,
  /** A map's or parallel's own entry is checkpointed as a step of that type, its result the branches' in input order. */
  type: z.enum(['step', 'map', 'parallel']).optional(),
  ...CallSite,
  result: z.unknown().optional(),
  error: z.strictObject({ code: z.string().min(1).max(maxErrorCodeLength), message: z.string().max(maxErrorMessageLength) }).optional(),
  durationMs: z.number().finite().min(0).max(1e8).optional(),
});
const WaitCheckpoint = z.strictObject({ kind: z.string().min(1).max(maxKindLength), name: StepName, args: z.unknown().optional(), ...CallSite });
const EntryCheckpoint = z.strictObject({ name: StepName });
const TimerArgs = z.strictObject({ duration: Duration });

/** Journal entries live as long as the execution record they belong to. */
const retentionSeconds = 90 * 24 * 60 * 60;
/** A watchdog fires this long after an invocation's lease, so a run still finishing is not taken from it. */
const watchdogGraceMs = 5_000;

const invalid = (error: z.ZodError) => {
  const issue = error.issues[0]!;
  return new DurableError(durableErrorCodes.invalidArgument, `${issue.path.join('.') || 'argument'}: ${issue.message}`, { field: issue.path.join('.') });
};

/** `wait`: a timer, which resolves when its duration is over. */
export const timerWaitKind: WaitKind = {
  type: 'wait',
  onTimeout: 'resolve',
  async open(_owner, _name, args) {
    const parsed = TimerArgs.safeParse(args);
    if (!parsed.success) throw invalid(parsed.error);
    return { timeoutSeconds: parsed.data.duration };
  },
};

/** What a refusal says, per bound; the run fails with it. */
const refusals: Record<Refusal, (limits: DurableLimits) => { message: string; limit: string; max: number }> = {
  steps: (limits) => ({ limit: 'steps', max: limits.maxSteps, message: `a durable run has at most ${limits.maxSteps} steps and waits` }),
  bytes: (limits) => ({
    limit: 'journalBytes',
    max: limits.maxJournalBytes,
    message: `a durable run's step results and errors add up to at most ${limits.maxJournalBytes} bytes`,
  }),
  runWaits: (limits) => ({
    limit: 'openWaitsPerRun',
    max: limits.maxOpenWaitsPerRun,
    message: `a durable run holds at most ${limits.maxOpenWaitsPerRun} waits open`,
  }),
  userWaits: (limits) => ({
    limit: 'openWaitsPerUser',
    max: limits.maxOpenWaitsPerUser,
    message: `a user's durable runs hold at most ${limits.maxOpenWaitsPerUser} waits open together`,
  }),
};

export interface DurableEngineDeps {
  journal: Journal;
  limits: DurableLimits;
  oneShots: Pick<SchedulerPort, 'putOnce' | 'remove'>;
  bus: EventPublisher;
  clock: Clock;
  /** What a run can wait on, by the kind the code names (`wait`, `callback`, `approval`, ...): the one registry. */
  waitKinds: Readonly<Record<string, WaitKind>>;
}

export function createDurableEngine(deps: DurableEngineDeps) {
  const { journal, clock } = deps;
  const waitKinds = new Map(Object.entries(deps.waitKinds));
  let order = 0;
  const nextSeq = () => clock.now() * 1000 + (order++ % 1000);
  const expiresAt = () => Math.floor(clock.now() / 1000) + retentionSeconds;
  const waitHash = (name: string) => createHash('sha256').update(name).digest('hex').slice(0, 16);

  const wake = (owner: { executionId: string; userId: string }, detail: Record<string, unknown>) =>
    deps.bus.publish({ type: durableWakeType, source: 'durable', userId: owner.userId, executionId: owner.executionId, ...detail });

  /** A checkpoint past one of the run's bounds: the run records it (and fails with it at its end), the code gets it thrown. */
  async function refuse(executionId: string, refusal: Refusal): Promise<DurableError> {
    const { message, ...details } = refusals[refusal](deps.limits);
    await journal.recordFailure(executionId, { code: durableErrorCodes.limitExceeded, message });
    return new DurableError(durableErrorCodes.limitExceeded, message, details);
  }

  /**
   * A run that ended (finished or cancelled) holds nothing open: its waits end as cancelled (their places given back),
   * their timers go, each kind closes what it keeps elsewhere saying why (an approval leaves its approvers' inboxes),
   * and so does its watchdog (a pending retry finds the run ended).
   */
  async function closeOpenWaits(run: Pick<RunItem, 'executionId' | 'openWaits'>, reason: string): Promise<void> {
    const { executionId } = run;
    await deps.oneShots.remove(watchdogName(executionId));
    if (run.openWaits === 0) return;
    const endedAt = clock.nowIso();
    for (const entry of await journal.waiting(executionId)) {
      if (!(await journal.settleWait(executionId, entry.name, { status: 'cancelled', endedAt }))) continue;
      await deps.oneShots.remove(waitTimerName(executionId, waitHash(entry.name)));
      await waitKindOf(entry.type)?.close?.(entry, reason);
    }
  }

  const waitKindOf = (type: JournalEntry['type']) => [...waitKinds.values()].find((candidate) => candidate.type === type);

  const engine = {
    /** Records a run before its first invocation; `queued` ones start through the bus (reruns, replays). */
    async begin(run: Omit<RunItem, 'name' | 'expiresAt' | 'invocation' | 'state'> & { state: Extract<RunState, 'queued' | 'running'> }) {
      await journal.putRun({ ...run, invocation: 1, expiresAt: expiresAt() });
      if (run.state === 'queued') await wake(run, {});
    },

    /** The journal an invocation carries, within handedJournalBytes. */
    async invocationJournal(executionId: string): Promise<InvocationJournal> {
      const outline = await journal.outline(executionId);
      // Null-prototype: a step may be named `__proto__` or `constructor`.
      const handed: Record<string, HandedEntry> = Object.create(null);
      let bytes = 0;
      const kept: JournalEntry[] = [];
      for (const entry of outline) {
        bytes += Buffer.byteLength(entry.name) + 100 + (entry.error ? Buffer.byteLength(entry.error.message) : 0);
        if (bytes > handedJournalBytes) break;
        kept.push(entry);
      }
      // Inline results while they fit what is left; the rest are held, asked for when the code reaches them.
      let room = handedJournalBytes - bytes;
      const fitting = kept.filter((entry) => {
        const size = entry.resultKey ? undefined : entry.resultBytes;
        if (size === undefined || size > room) return false;
        room -= size;
        return true;
      });
      const results = new Map((await journal.withResults(executionId, fitting)).map((entry) => [entry.name, entry.result]));
      for (const entry of kept) {
        const result = results.get(entry.name);
        handed[entry.name] = {
          type: entry.type,
          status: entry.status,
          ...(result !== undefined && { result }),
          ...(result === undefined && entry.status === 'succeeded' && { held: true as const }),
          ...(entry.error && { error: entry.error }),
          ...(entry.context !== undefined && { context: entry.context, position: entry.position }),
        };
      }
      return { entries: handed, ...(kept.length < outline.length && { partial: true as const }) };
    },

    /** One entry of the run for its invocation (one left out of the journal it was handed), or null. */
    async entry(executionId: string, name: string): Promise<HandedEntry | null> {
      const entry = await journal.entry(executionId, name);
      if (!entry) return null;
      const result = await journal.resultOf(entry);
      return { type: entry.type, status: entry.status, ...(result !== undefined && { result }), ...(entry.error && { error: entry.error }) };
    },

    /** The bound the run went past, recorded when a checkpoint was refused: the run fails with it. */
    async failure(executionId: string): Promise<ExecutionError | undefined> {
      return (await journal.getRun(executionId))?.failure;
    },

    /**
     * A checkpoint from a running invocation: `step` stores a finished step (the first write stands: a step repeated
     * by a lost invocation gets the stored result back), `wait` opens a wait of a registered kind and schedules its
     * end. Answers what the code continues with.
     */
    async checkpoint(owner: WaitOwner, method: string, params: unknown): Promise<Record<string, unknown>> {
      const now = clock.now();
      if (method === 'step') {
        const parsed = StepCheckpoint.safeParse(params);
        if (!parsed.success) throw invalid(parsed.error);
        const { name, type, context, position, result, error, durationMs } = parsed.data;
        const refused = error ? undefined : unstorableResult(result);
        if (refused) throw new DurableError(refused.code, refused.message, { field: 'result' });
        const put = await journal.putStep(
          {
            executionId: owner.executionId,
            name,
            seq: nextSeq(),
            type: type ?? 'step',
            status: error ? 'failed' : 'succeeded',
            ...(context !== undefined && { context, position }),
            startedAt: new Date(now - (durationMs ?? 0)).toISOString(),
            endedAt: new Date(now).toISOString(),
            ...(error && { error }),
            expiresAt: expiresAt(),
          },
          error ? undefined : JSON.stringify(result ?? null),
          deps.limits,
        );
        if ('refused' in put) throw await refuse(owner.executionId, put.refused);
        const { written, entry } = put;
        if (!written && entry.type !== (type ?? 'step'))
          throw new DurableError(durableErrorCodes.nameReused, `the name ${name} is used by a ${entry.type} of this run already`);
        return { result: (await journal.resultOf(entry)) ?? null, error: entry.error ?? null };
      }
      if (method === 'entry') {
        const parsed = EntryCheckpoint.safeParse(params);
        if (!parsed.success) throw invalid(parsed.error);
        return { entry: await engine.entry(owner.executionId, parsed.data.name) };
      }
      if (method !== 'wait') throw new DurableError(durableErrorCodes.unknownKind, `unknown durable operation ${method}: step, wait or entry`);
      const parsed = WaitCheckpoint.safeParse(params);
      if (!parsed.success) throw invalid(parsed.error);
      const { kind, name, args, context, position } = parsed.data;
      // Read at waits, not at every step (one read less per step): a cancelled run stops at its next wait or its end.
      const run = await journal.getRun(owner.executionId);
      if (!run || run.state === 'cancelled') throw new DurableError(durableErrorCodes.cancelled, `execution ${owner.executionId} was cancelled`);
      if (run.failure) throw new DurableError(run.failure.code, run.failure.message);
      const waitKind = waitKinds.get(kind);
      if (!waitKind)
        throw new DurableError(durableErrorCodes.unknownKind, `unknown wait kind ${kind}: one of ${[...waitKinds.keys()].join(', ')}`, { field: 'kind' });
      // The wait's place is taken before its kind stores anything (an approval, an event wait), and given back if it does not open.
      const keptUntil = expiresAt() + maxWaitSeconds;
      const refusal = await journal.reserveWait(owner.executionId, owner.userId, deps.limits, Math.max(run.expiresAt, keptUntil));
      if (refusal) throw await refuse(owner.executionId, refusal);
      let opened;
      let wakeAt = '';
      let written = false;
      try {
        opened = await waitKind.open(owner, name, args);
        wakeAt = new Date(now + opened.timeoutSeconds * 1000).toISOString();
        const put = await journal.putEntry({
          executionId: owner.executionId,
          name,
          seq: nextSeq(),
          type: waitKind.type,
          status: 'waiting',
          startedAt: new Date(now).toISOString(),
          endedAt: null,
          wakeAt,
          ...(opened.fields && { fields: opened.fields }),
          ...(context !== undefined && { context, position }),
          userId: owner.userId,
          expiresAt: keptUntil,
        });
        written = put.written;
        if (!written) throw new DurableError(durableErrorCodes.nameReused, `the name ${name} is used by a ${put.entry.type} of this run already`);
      } catch (error) {
        if (!written) await Promise.all([journal.releaseWait(owner.executionId, owner.userId), opened?.abandon?.()]);
        if (error instanceof ValidationError) throw new DurableError(durableErrorCodes.invalidArgument, error.message, error.details);
        throw error;
      }
      await deps.oneShots.putOnce({
        name: waitTimerName(owner.executionId, waitHash(name)),
        at: wakeAt,
        event: { type: durableWakeType, userId: owner.userId, detail: { executionId: owner.executionId, wait: name } },
      });
      // Begun once its entry stands: what it starts (a child run) may end it at once.
      await opened.begin?.();
      return { wakeAt, ...opened.reply };
    },

    /** Arms the watchdog of an invocation: past its lease, a run still held by it is continued by a new one. */
    async watch(run: { executionId: string; userId: string }, invocation: number, runningUntil: string) {
      await deps.oneShots.putOnce({
        name: watchdogName(run.executionId),
        at: new Date(Date.parse(runningUntil) + watchdogGraceMs).toISOString(),
        event: { type: durableWakeType, userId: run.userId, detail: { executionId: run.executionId, watch: invocation } },
      });
    },

    /**
     * The invocation ended by suspending: the run waits. A wait that ended while the invocation was still running
     * (a quick callback, one of a map's branches) continues it at once.
     */
    async suspended(executionId: string, invocation: number): Promise<void> {
      await deps.oneShots.remove(watchdogName(executionId));
      const run = await journal.moveRun(executionId, ['running'], 'waiting', { invocation });
      if (!run) return;
      const endedSinceTaken = (run.settledWaits ?? 0) > (run.settledWhenTaken ?? 0);
      if (endedSinceTaken || (await journal.waiting(executionId)).length === 0) await wake(run, {});
    },

    /** An invocation that could not start (no free slot): the run waits again and is continued after `seconds`. */
    async retryLater(run: { executionId: string; userId: string }, invocation: number, seconds: number) {
      await deps.oneShots.remove(watchdogName(run.executionId));
      if (!(await journal.moveRun(run.executionId, ['running'], 'waiting', { invocation }))) return;
      await deps.oneShots.putOnce({
        name: retryName(run.executionId),
        at: new Date(clock.now() + seconds * 1000).toISOString(),
        event: { type: durableWakeType, userId: run.userId, detail: { executionId: run.executionId } },
      });
    },

    /** The invocation ended the run; false when it no longer held it (cancelled meanwhile). */
    async finished(executionId: string, invocation: number): Promise<boolean> {
      const run = await journal.moveRun(executionId, ['running'], 'finished', { invocation });
      if (!run) {
        await deps.oneShots.remove(watchdogName(executionId));
        return false;
      }
      await closeOpenWaits(run, `its run ${executionId} ended`);
      return true;
    },

    /** Whether a re-run from a later step may start with this ended entry of the run instead of running it again. */
    reusable: (entry: JournalEntry): boolean => entry.type === 'step' || (waitKindOf(entry.type)?.reusable?.(entry) ?? true),

    /** Ends a wait and continues its run. False when the wait is not waiting (ended before, cancelled, or no such wait). */
    async resolveWait(executionId: string, name: string, outcome: WaitOutcome): Promise<boolean> {
      const endedAt = clock.nowIso();
      const settled =
        'error' in outcome
          ? await journal.settleWait(executionId, name, { status: 'failed', endedAt, error: outcome.error })
          : await (async () => {
              const refused = unstorableResult(outcome.result);
              if (refused) throw new DurableError(refused.code, refused.message, { field: 'result', value: outcome.result });
              return journal.settleWait(executionId, name, { status: 'succeeded', endedAt, text: JSON.stringify(outcome.result ?? null) });
            })();
      if (!settled) return false;
      await deps.oneShots.remove(waitTimerName(executionId, waitHash(name)));
      const run = await journal.getRun(executionId);
      if (run?.state === 'waiting') await wake(run, {});
      return true;
    },

    /**
     * What handles the engine's wake-ups, with the resumers of every kind of run (by the runner name its runs are begun
     * with): a wait's timer or timeout ends the wait, a lapsed lease or a wait that ended continues the run.
     */
    wakes(resumers: Readonly<Record<string, Resumer>>) {
      /** Continues a waiting (or queued) run in a new invocation, unless another took it first. */
      async function resume(executionId: string): Promise<void> {
        const run = await journal.moveRun(executionId, ['waiting', 'queued'], 'running', { nextInvocation: true });
        if (!run) return;
        const resumer = Object.hasOwn(resumers, run.runner) ? resumers[run.runner] : undefined;
        if (!resumer) throw new Error(`no resumer declared for durable runs of kind ${run.runner}`);
        await resumer(run);
      }
      return async (detail: WakeDetail): Promise<void> => {
        if (detail.watch !== undefined) {
          // The invocation that armed it never reported back (its worker or Lambda died): the run continues in a new one.
          const taken = await journal.moveRun(detail.executionId, ['running'], 'waiting', { invocation: detail.watch });
          if (taken) await resume(detail.executionId);
          return;
        }
        if (detail.wait !== undefined) {
          const entry = await journal.entry(detail.executionId, detail.wait);
          const kind = entry && waitKindOf(entry.type);
          if (!entry || !kind) return;
          const ended = await engine.resolveWait(
            detail.executionId,
            entry.name,
            kind.onTimeout === 'resolve' ? { result: null } : { error: { code: durableErrorCodes.timeout, message: `${entry.type} ${entry.name} timed out` } },
          );
          // Fired again after a crash: the wait ended before, but the wake-up that followed may have died with the process.
          if (!ended) await resume(detail.executionId);
          return;
        }
        await resume(detail.executionId);
      };
    },

    /** Stops the run: its open waits end as cancelled and later wake-ups, callbacks and checkpoints are refused. */
    async cancel(executionId: string): Promise<boolean> {
      const run = await journal.moveRun(executionId, ['queued', 'running', 'waiting'], 'cancelled');
      if (!run) return false;
      await closeOpenWaits(run, `its run ${executionId} was cancelled`);
      return true;
    },
  };

  return engine;
}

export type DurableEngine = ReturnType<typeof createDurableEngine>;
