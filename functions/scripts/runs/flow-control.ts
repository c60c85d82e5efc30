// Flow control of a script's runs (config.throttle, rateLimit, priority, singleton, queueTtl), between the runner's
// admission (access, daily and budget limits) and its slots (concurrency). Counters and claims are conditional
// writes on scriptCounters; a throttled run waits as a `queued` record of the run table, ordered by the sparse index
// `byQueue`, and a scheduler one-shot at the next window's start admits the heads of its queue: no polling loop, and
// nothing held while runs wait. A run with no option passes without a read.
import { createHash } from 'node:crypto';
import { GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '#platform/clock.js';
import { dynamo, isConditionFailure, tableName } from '#platform/dynamo.js';
import { ConflictError, TooManyRequestsError, ValidationError } from '#platform/errors.js';
import { type FlowControl, type QueuePlace, durationMs, flowControlLimits, runQueueWakeType } from '#platform/flow-control.js';
import type { SchedulerPort } from '#platform/ports.js';
import type { Execution } from '../model.js';
import { concurrencyKeyValue } from './concurrency-key.js';
import type { ExecutionStore } from './execution-store.js';
import type { AdmittedRun } from './runner.js';
import { runGraceMs } from './run-grant.js';

/** A queued run carries its whole admission as JSON; past this its trigger is refused rather than queued. */
const maxQueuedBytes = 256 * 1024;
/** Runs one window's wake starts at most (the rest wait for the next wake, a moment later). */
const maxStartsPerWake = 1_000;
/** A wake that found fewer queued runs than it reserved (the index lags its table) looks again this much later. */
const lagRetryMs = 1_000;

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 32);

/**
 * The value of `path` in the run's data, and the counter part it names: the value of the run's user (hashed: it may be
 * long). Counted per user, as concurrency keys are by default: another user of an installed script cannot use up a
 * window or a singleton of someone else's value.
 */
function keyOf(path: string | undefined, admitted: AdmittedRun) {
  const value = path === undefined ? '' : concurrencyKeyValue(path, admitted.data);
  return { value, hash: digest(JSON.stringify([admitted.running.userId, value])) };
}

/** Seconds of advance a run's priority key gives it, bounded; no number there is none. */
function priorityAdvanceMs(config: FlowControl, data: unknown): number {
  if (!config.priority) return 0;
  const seconds = Number(concurrencyKeyValue(config.priority.key, data));
  if (!Number.isFinite(seconds)) return 0;
  const bound = flowControlLimits.prioritySeconds;
  return Math.round(Math.max(-bound, Math.min(bound, seconds)) * 1000);
}

/** The sort key of the queue: trigger time less the priority's advance, then the id (first come, first served). */
const queueOrderOf = (createdAtMs: number, advanceMs: number, executionId: string) =>
  `${String(Math.max(0, createdAtMs - advanceMs)).padStart(15, '0')}#${executionId}`;

export const hasFlowControl = (config: FlowControl) => Boolean(config.throttle || config.rateLimit || config.singleton || config.queueTtl || config.priority);

const wakeName = (queueKey: string) => `fq-${digest(queueKey)}`;
const expiryName = (executionId: string) => `fx-${executionId}`.slice(0, 64);

export interface FlowControlDeps {
  executions: Pick<ExecutionStore, 'putRunning' | 'putFinished' | 'releaseDailyRun'>;
  oneShots: () => Pick<SchedulerPort, 'putOnce' | 'remove'>;
  clock: Clock;
  /** Starts a run the queue let go (its record moved to running already), in the background. */
  start: (admitted: AdmittedRun) => Promise<void>;
  /** Cancels a durable run (singleton `cancel`); false when it was not running. */
  cancel: (userId: string, executionId: string) => Promise<boolean>;
}

export type Entry = { go: AdmittedRun } | { queued: Execution };

export function createFlowControl(deps: FlowControlDeps) {
  const db = dynamo();
  const counters = () => tableName('scriptCounters');
  const runs = () => tableName('scriptExecutions');
  const { clock } = deps;

  /** Records a run that never ran (skipped or expired): it gave its day's place back. */
  async function recordNotRun(admitted: AdmittedRun, status: 'skipped', reason: 'rateLimit' | 'singleton', error: { code: string; message: string }) {
    const { runningUntil: _until, ...record } = admitted.running;
    await Promise.all([
      deps.executions.putFinished({ ...record, status, reason, error, finishedAt: clock.nowIso() }),
      deps.executions.releaseDailyRun(admitted.dailyCounter),
    ]);
  }

  /** One more run in the rate limit's window, or the seconds until the window ends. */
  async function countRate(admitted: AdmittedRun, rate: NonNullable<FlowControl['rateLimit']>): Promise<number | undefined> {
    const periodMs = durationMs(rate.period);
    const now = clock.now();
    const window = Math.floor(now / periodMs);
    const key = keyOf(rate.key, admitted);
    try {
      await db.send(
        new UpdateCommand({
          TableName: counters(),
          Key: { counter: `rate#${admitted.running.scriptId}#${key.hash}#${window}` },
          UpdateExpression: 'ADD runs :one SET expiresAt = :expiresAt',
          ConditionExpression: 'attribute_not_exists(runs) OR runs < :limit',
          ExpressionAttributeValues: { ':one': 1, ':limit': rate.limit, ':expiresAt': Math.ceil(((window + 1) * periodMs) / 1000) + 3600 },
        }),
      );
      return undefined;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      return Math.max(1, Math.ceil(((window + 1) * periodMs - now) / 1000));
    }
  }

  const singletonCounter = (scriptId: string, hash: string) => `singleton#${scriptId}#${hash}`;

  /** Takes the key value's one place; the holder's id when another run holds it. */
  async function holdSingleton(admitted: AdmittedRun, singleton: NonNullable<FlowControl['singleton']>, force: boolean): Promise<string | undefined> {
    const { running } = admitted;
    const key = keyOf(singleton.key, admitted);
    const now = clock.now();
    const until = Date.parse(running.runningUntil ?? running.createdAt) + runGraceMs;
    try {
      await db.send(
        new UpdateCommand({
          TableName: counters(),
          Key: { counter: singletonCounter(running.scriptId, key.hash) },
          UpdateExpression: 'SET holder = :me, holderUser = :user, #until = :until, expiresAt = :expiresAt',
          ...(force ? {} : { ConditionExpression: 'attribute_not_exists(holder) OR #until < :now' }),
          ExpressionAttributeNames: { '#until': 'until' },
          ExpressionAttributeValues: {
            ':me': running.executionId,
            ':user': running.userId,
            ':until': until,
            ':expiresAt': Math.ceil(until / 1000) + 3600,
            ...(force ? {} : { ':now': now }),
          },
          ReturnValues: force ? 'ALL_OLD' : 'NONE',
        }),
      );
      return undefined;
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const { Item } = await db.send(
        new GetCommand({ TableName: counters(), Key: { counter: singletonCounter(running.scriptId, key.hash) }, ConsistentRead: true }),
      );
      return String(Item?.holder ?? '');
    }
  }

  /** Cancel mode: the holder is cancelled (a durable run; another runs to its end) and the new run takes its place. */
  async function replaceSingleton(admitted: AdmittedRun, singleton: NonNullable<FlowControl['singleton']>) {
    const { running } = admitted;
    const key = keyOf(singleton.key, admitted);
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: counters(),
        Key: { counter: singletonCounter(running.scriptId, key.hash) },
        UpdateExpression: 'SET holder = :me, holderUser = :user, #until = :until',
        ExpressionAttributeNames: { '#until': 'until' },
        ExpressionAttributeValues: {
          ':me': running.executionId,
          ':user': running.userId,
          ':until': Date.parse(running.runningUntil ?? running.createdAt) + runGraceMs,
        },
        ReturnValues: 'ALL_OLD',
      }),
    );
    const holder = Attributes?.holder;
    if (typeof holder === 'string' && holder !== running.executionId && Number(Attributes?.until) > clock.now())
      await deps.cancel(String(Attributes?.holderUser), holder).catch(() => false);
  }

  /** A throttle window's state for one key value of a script: the window, the runs it started, the runs queued. */
  interface ThrottleState {
    window: number;
    started: number;
    waiting: number;
  }

  /** Starts in the current window when it has room and nobody waits; false when the run must queue. */
  async function startInWindow(queueKey: string, limit: number, window: number): Promise<boolean> {
    const attempts = [
      // The window still open, with room, and no run queued before this one.
      { update: 'ADD started :one', condition: '#window = :window AND started < :limit AND waiting = :zero' },
      // A new window (or the first run): it starts the count again.
      {
        update: 'SET #window = :window, started = :one, waiting = if_not_exists(waiting, :zero)',
        condition: '(attribute_not_exists(#window) OR #window < :window) AND (attribute_not_exists(waiting) OR waiting = :zero)',
      },
    ];
    for (const { update, condition } of attempts) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: counters(),
            Key: { counter: queueKey },
            UpdateExpression: update,
            ConditionExpression: condition,
            ExpressionAttributeNames: { '#window': 'window' },
            ExpressionAttributeValues: { ':one': 1, ':zero': 0, ':window': window, ...(update.startsWith('ADD') && { ':limit': limit }) },
          }),
        );
        return true;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    }
    return false;
  }

  /** Wakes the queue at the start of the next window (one pending wake per queue: a later put replaces it). */
  async function wakeAt(queueKey: string, at: number, throttle: { limit: number; periodMs: number }, userId: string) {
    await deps.oneShots().putOnce({
      name: wakeName(queueKey),
      at: new Date(at).toISOString(),
      event: { type: runQueueWakeType, userId, detail: { queueKey, limit: throttle.limit, periodMs: throttle.periodMs } },
    });
  }

  /**
   * The throttle: the run starts now, or waits as a queued record (written first, then counted, then the queue's wake
   * is set, so a wake never misses it).
   */
  async function throttled(admitted: AdmittedRun, throttle: NonNullable<FlowControl['throttle']>): Promise<Entry> {
    const { running, config } = admitted;
    const periodMs = durationMs(throttle.period);
    const now = clock.now();
    const window = Math.floor(now / periodMs);
    const key = keyOf(throttle.key, admitted);
    const queueKey = `throttle#${running.scriptId}#${key.hash}`;
    if (await startInWindow(queueKey, throttle.limit, window)) return { go: admitted };
    const { Attributes } = await db.send(
      new UpdateCommand({
        TableName: counters(),
        Key: { counter: queueKey },
        UpdateExpression: 'ADD waiting :zero',
        ExpressionAttributeValues: { ':zero': 0 },
        ReturnValues: 'ALL_NEW',
      }),
    );
    const state = Attributes as Partial<ThrottleState> | undefined;
    // Where it stands: after those waiting, `limit` per window from the next one.
    const windowsAhead = Math.floor((state?.waiting ?? 0) / throttle.limit) + 1;
    const until = (Math.max(window, state?.window ?? window) + windowsAhead) * periodMs;
    const place: QueuePlace = { reason: 'throttle', ...(key.value !== '' && { key: key.value }), until: new Date(until).toISOString() };
    const queued = await enqueue(
      admitted,
      place,
      queueKey,
      queueOrderOf(Date.parse(running.createdAt), priorityAdvanceMs(config, admitted.data), running.executionId),
    );
    await db.send(
      new UpdateCommand({ TableName: counters(), Key: { counter: queueKey }, UpdateExpression: 'ADD waiting :one', ExpressionAttributeValues: { ':one': 1 } }),
    );
    await wakeAt(queueKey, (Math.max(window, state?.window ?? window) + 1) * periodMs, { limit: throttle.limit, periodMs }, running.userId);
    return { queued };
  }

  /** Writes (or rewrites) the run's queued record, with its queueTtl's one-shot. */
  async function enqueue(admitted: AdmittedRun, queue: QueuePlace, queueKey?: string, queueOrder?: string): Promise<Execution> {
    const admittedJson = JSON.stringify(admitted);
    if (Buffer.byteLength(admittedJson) > maxQueuedBytes)
      throw new ValidationError('data', `${Buffer.byteLength(admittedJson)} bytes`, `a run that may queue carries at most ${maxQueuedBytes} bytes of data`);
    const { runningUntil: _until, ...record } = admitted.running;
    const queued: Execution = { ...record, status: 'queued', queue, ...(queueKey && { queueKey, queueOrder }), admittedJson };
    await deps.executions.putRunning(queued);
    if (admitted.config.queueTtl)
      await deps.oneShots().putOnce({
        name: expiryName(record.executionId),
        at: new Date(Date.parse(record.createdAt) + durationMs(admitted.config.queueTtl)).toISOString(),
        event: { type: runQueueWakeType, userId: record.userId, detail: { executionId: record.executionId, expire: true } },
      });
    const { admittedJson: _json, queueKey: _key, queueOrder: _order, ...view } = queued;
    return view;
  }

  /** Moves a queued run to running, once: false when it is not queued any more (started, expired, cancelled). */
  async function claimQueued(executionId: string): Promise<AdmittedRun | undefined> {
    try {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: runs(),
          Key: { executionId },
          UpdateExpression: 'SET #status = :running, runningUntil = :until REMOVE queue, queueKey, queueOrder, admittedJson',
          ConditionExpression: '#status = :queued',
          ExpressionAttributeNames: { '#status': 'status' },
          // Refined below once the admission is read: the record must not read as lost meanwhile.
          ExpressionAttributeValues: { ':running': 'running', ':queued': 'queued', ':until': new Date(clock.now() + 20 * 60_000).toISOString() },
          ReturnValues: 'ALL_OLD',
        }),
      );
      const admitted = JSON.parse(String(Attributes?.admittedJson)) as AdmittedRun;
      const runningUntil = new Date(clock.now() + admitted.slotWaitMs + admitted.timeoutMs + runGraceMs).toISOString();
      const running: Execution = { ...admitted.running, status: 'running', runningUntil };
      await deps.executions.putRunning(running);
      if (admitted.config.queueTtl) await deps.oneShots().remove(expiryName(executionId));
      return { ...admitted, running };
    } catch (error) {
      if (isConditionFailure(error)) return undefined;
      throw error;
    }
  }

  /** The heads of a throttle queue, as many as the window has room for: each started once. */
  async function wakeQueue(queueKey: string, throttle: { limit: number; periodMs: number }, userId: string) {
    const Key = { counter: queueKey };
    const { Item } = await db.send(new GetCommand({ TableName: counters(), Key, ConsistentRead: true }));
    const state = (Item ?? { window: 0, started: 0, waiting: 0 }) as ThrottleState;
    const now = clock.now();
    const window = Math.floor(now / throttle.periodMs);
    const room = state.window === window ? throttle.limit - state.started : throttle.limit;
    const take = Math.min(room, state.waiting, maxStartsPerWake);
    const nextWindow = (window + 1) * throttle.periodMs;
    if (take <= 0) {
      if (state.waiting > 0) await wakeAt(queueKey, nextWindow, throttle, userId);
      return;
    }
    try {
      await db.send(
        new UpdateCommand({
          TableName: counters(),
          Key,
          UpdateExpression: 'SET #window = :window, started = :started, waiting = waiting - :take',
          ConditionExpression: '#window = :seenWindow AND started = :seenStarted AND waiting >= :take',
          ExpressionAttributeNames: { '#window': 'window' },
          ExpressionAttributeValues: {
            ':window': window,
            ':started': (state.window === window ? state.started : 0) + take,
            ':take': take,
            ':seenWindow': state.window,
            ':seenStarted': state.started,
          },
        }),
      );
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      // Another wake or arrival moved the window meanwhile: the bus delivers this wake again.
      throw new ConflictError(`the queue ${queueKey} moved while it was woken`);
    }
    const { Items = [] } = await db.send(
      new QueryCommand({
        TableName: runs(),
        IndexName: 'byQueue',
        KeyConditionExpression: 'queueKey = :queue',
        ExpressionAttributeValues: { ':queue': queueKey },
        ProjectionExpression: 'executionId',
        Limit: take,
      }),
    );
    let started = 0;
    for (const item of Items) {
      const admitted = await claimQueued(String(item.executionId));
      if (!admitted) continue;
      started++;
      await deps.start(admitted);
    }
    const missed = take - started;
    if (missed > 0)
      await db.send(
        new UpdateCommand({
          TableName: counters(),
          Key,
          UpdateExpression: 'ADD started :less, waiting :missed',
          ExpressionAttributeValues: { ':less': -missed, ':missed': missed },
        }),
      );
    const left = state.waiting - started;
    if (left > 0) await wakeAt(queueKey, missed > 0 ? now + lagRetryMs : nextWindow, throttle, userId);
  }

  /** A queued run past its queueTtl ends `expired`; its queue counts one run less. */
  async function expire(executionId: string) {
    let old: Record<string, unknown> | undefined;
    try {
      ({ Attributes: old } = await db.send(
        new UpdateCommand({
          TableName: runs(),
          Key: { executionId },
          UpdateExpression: 'SET #status = :expired, reason = :reason, finishedAt = :at, #error = :error REMOVE queue, queueKey, queueOrder, admittedJson',
          ConditionExpression: '#status = :queued',
          ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
          ExpressionAttributeValues: {
            ':expired': 'expired',
            ':queued': 'queued',
            ':reason': 'queueTtl',
            ':at': clock.nowIso(),
            ':error': { code: 'QUEUE_TTL_EXPIRED', message: 'the run waited in its queue past its queueTtl and did not run' },
          },
          ReturnValues: 'ALL_OLD',
        }),
      ));
    } catch (error) {
      if (isConditionFailure(error)) return;
      throw error;
    }
    const admitted = JSON.parse(String(old?.admittedJson)) as AdmittedRun;
    await Promise.all([
      deps.executions.releaseDailyRun(admitted.dailyCounter),
      typeof old?.queueKey === 'string' &&
        db.send(
          new UpdateCommand({
            TableName: counters(),
            Key: { counter: old.queueKey },
            UpdateExpression: 'ADD waiting :less',
            ExpressionAttributeValues: { ':less': -1 },
          }),
        ),
    ]);
  }

  return {
    /**
     * The gate of a run right after its admission: it goes on (`go`), waits as a queued record (`queued`), or is
     * skipped (its record written, and RATE_LIMITED or CONFLICT thrown: an execute answers with it, a trigger records it).
     */
    async enter(admitted: AdmittedRun): Promise<Entry> {
      const { config } = admitted;
      if (!hasFlowControl(config)) return { go: admitted };
      if (config.rateLimit) {
        const retryAfter = await countRate(admitted, config.rateLimit);
        if (retryAfter !== undefined) {
          const message = `script ${admitted.running.scriptId} allows ${config.rateLimit.limit} runs per ${durationMs(config.rateLimit.period) / 1000} seconds per key value`;
          await recordNotRun(admitted, 'skipped', 'rateLimit', { code: 'RATE_LIMITED', message });
          throw new TooManyRequestsError('RATE_LIMITED', message, retryAfter, {
            scriptId: admitted.running.scriptId,
            executionId: admitted.running.executionId,
          });
        }
      }
      if (config.singleton) {
        if (config.singleton.mode === 'cancel') await replaceSingleton(admitted, config.singleton);
        else {
          const holder = await holdSingleton(admitted, config.singleton, false);
          if (holder !== undefined) {
            const message = `a run of this key value is running already (${holder}); singleton skips the new one`;
            await recordNotRun(admitted, 'skipped', 'singleton', { code: 'SINGLETON', message });
            throw new ConflictError(message, { executionId: admitted.running.executionId, runningExecutionId: holder });
          }
        }
      }
      if (config.throttle) return throttled(admitted, config.throttle);
      return { go: admitted };
    },

    /** A run's end gives its singleton place back (unless another run took it over since). */
    async left(admitted: AdmittedRun) {
      const { singleton } = admitted.config;
      if (!singleton) return;
      const key = keyOf(singleton.key, admitted);
      try {
        await db.send(
          new UpdateCommand({
            TableName: counters(),
            Key: { counter: singletonCounter(admitted.running.scriptId, key.hash) },
            UpdateExpression: 'REMOVE holder, holderUser, #until',
            ConditionExpression: 'holder = :me',
            ExpressionAttributeNames: { '#until': 'until' },
            ExpressionAttributeValues: { ':me': admitted.running.executionId },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },

    enqueue,

    /**
     * "Admit this run now": a queued run (whatever held it: a debounce or batch window that closed) passes its
     * throttle and starts, exactly once (the move queued -> running is conditional); 'gone' when it is not queued.
     */
    async admitNow(executionId: string): Promise<'started' | 'queued' | 'gone'> {
      const { Item } = await db.send(new GetCommand({ TableName: runs(), Key: { executionId }, ConsistentRead: true }));
      if (Item?.status !== 'queued' || typeof Item.admittedJson !== 'string') return 'gone';
      const admitted = JSON.parse(Item.admittedJson) as AdmittedRun;
      if (admitted.config.throttle && Item.queue?.reason !== 'throttle') {
        const entry = await throttled(admitted, admitted.config.throttle);
        if ('queued' in entry) return 'queued';
      }
      const claimed = await claimQueued(executionId);
      if (!claimed) return 'gone';
      await deps.start(claimed);
      return 'started';
    },

    /** A one-shot of the queue came: a throttle window opened, or a queued run's queueTtl passed. */
    async wake(detail: Record<string, unknown>) {
      if (detail.expire === true && typeof detail.executionId === 'string') return expire(detail.executionId);
      if (typeof detail.queueKey === 'string' && typeof detail.limit === 'number' && typeof detail.periodMs === 'number')
        return wakeQueue(detail.queueKey, { limit: detail.limit, periodMs: detail.periodMs }, String(detail.userId ?? ''));
    },
  };
}

export type FlowControlGate = ReturnType<typeof createFlowControl>;
