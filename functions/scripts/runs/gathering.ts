// Debounce and batch of a script's runs, whatever triggered them: a trigger joins its key's open window (or opens
// one, with a queued run record), and the window closes on a one-shot of the scheduler (debounce's quiet period or
// maxWait, batch's timeout) or when a batch is full; the closed run then goes through ordinary admission.
import { createHash } from 'node:crypto';
import type { Clock } from '#platform/clock.js';
import { AppError, ConflictError, ValidationError } from '#platform/errors.js';
import { type Gathering, durationSeconds, gatherBounds, maxGatheredBytes } from '#platform/gathering.js';
import { newId } from '#platform/ids.js';
import type { EventPublisher, SchedulerPort } from '#platform/ports.js';
import type { Execution, Trigger } from '../model.js';
import { concurrencyKeyValue } from './concurrency-key.js';
import type { GatherStore, GatherWindow, GatheredInput } from './gather-store.js';
import type { QueuePlace } from '#platform/flow-control.js';

/** What starting a closed window's run uses of the runner (its admission and its run) and of the day's count. */
export interface ReleasePorts<Admitted extends { running: Execution; dailyCounter: string }> {
  admit(request: ReleasedRun & { gathered: string }): Promise<Admitted>;
  runAdmitted(admitted: Admitted): Promise<unknown>;
  releaseDailyRun(counter: string): Promise<void>;
}

/** The bus event that closes a window (its one-shot, or a batch that filled): detail `{executionId, window}`. */
export const gatherCloseType = 'platform.gather_close';

/** A trigger's attempts at joining a window that others keep closing and opening under it. */
const maxAttempts = 20;
/** A closing that did not get to start its run (the process died) is tried again this much later. */
const retryCloseMs = 60_000;

const windowName = (executionId: string) => `gather-${executionId}`;
const isoOf = (ms: number) => new Date(ms).toISOString();

/** A trigger of a gathered script: whose run, its data and what triggered it. */
export interface GatherTrigger {
  scriptId: string;
  userId: string;
  data: unknown;
  trigger: Trigger;
}

/** A closed window's run, as its record holds it: what admission needs to start it. */
export interface ReleasedRun extends GatherTrigger {
  executionId: string;
  batch?: unknown[];
}

/** When the window closes: debounce's quiet period after its last trigger (within maxWait), batch's timeout. */
function deadlineOf(window: GatherWindow): number {
  if (window.reason === 'batch') return window.closeBy ?? window.firstAt;
  return Math.min(window.lastAt + (window.periodMs ?? 0), window.closeBy ?? Number.POSITIVE_INFINITY);
}

const inputOf = (window: GatherWindow): GatheredInput =>
  window.reason === 'batch'
    ? { batchJson: `[${(window.items ?? []).join(',')}]`, triggerJson: window.triggerJson }
    : { inputJson: window.lastJson ?? 'null', triggerJson: window.triggerJson };

export function createGathering(deps: { store: GatherStore; oneShots: Pick<SchedulerPort, 'putOnce' | 'remove'>; bus: EventPublisher; clock: Clock }) {
  const { store, clock } = deps;

  const closeEvent = (window: Pick<GatherWindow, 'executionId' | 'counter'>, userId: string) => ({
    type: gatherCloseType,
    userId,
    detail: { executionId: window.executionId, window: window.counter },
  });

  const armClose = (window: Pick<GatherWindow, 'executionId' | 'counter'>, userId: string, at: number) =>
    deps.oneShots.putOnce({ name: windowName(window.executionId), at: isoOf(at), event: closeEvent(window, userId) });

  /** A full batch closes at once: its run starts on the bus event (the timeout's one-shot stays as a backstop). */
  async function closeFull(window: GatherWindow, userId: string) {
    if (await store.close(window, inputOf(window), clock.nowIso()))
      await deps.bus.publish({ ...closeEvent(window, userId).detail, type: gatherCloseType, source: 'gather', userId });
  }

  return {
    /**
     * Gathers one trigger into its key's window and answers the window's queued run. `queued` builds that run's record
     * when the trigger opens a window.
     */
    async gather(gathering: Gathering, request: GatherTrigger, queued: (executionId: string, queue: QueuePlace) => Execution): Promise<Execution> {
      const dataJson = JSON.stringify(request.data ?? null);
      const bytes = Buffer.byteLength(dataJson);
      const itemBound = gathering.reason === 'batch' ? gatherBounds.batchItemBytes : gatherBounds.debounceDataBytes;
      if (bytes > itemBound) throw new ValidationError('data', `${bytes} bytes`, `a ${gathering.reason} trigger's data is at most ${itemBound} bytes of JSON`);
      const { key } = gathering.options;
      const keyValue = key === undefined ? undefined : concurrencyKeyValue(key, request.data);
      const keyHash = createHash('sha256')
        .update(keyValue ?? '')
        .digest('base64url')
        .slice(0, 32);
      const counter = `gather#${request.scriptId}#${request.userId}#${keyHash}`;
      const queue = (until: number): QueuePlace => ({
        reason: gathering.reason,
        ...(keyValue !== undefined && { key: keyValue.slice(0, 200) }),
        until: isoOf(until),
      });
      const triggerJson = JSON.stringify(request.trigger);
      for (let attempt = 0; attempt < maxAttempts; attempt++) {
        const now = clock.now();
        const joined =
          gathering.reason === 'debounce'
            ? await store.touch(counter, { dataJson, triggerJson, at: now })
            : await store.append(counter, dataJson, { maxSize: gathering.options.maxSize, maxBytes: maxGatheredBytes }, now);
        if (joined) {
          if (gathering.reason === 'batch' && joined.count >= gathering.options.maxSize) await closeFull(joined, request.userId);
          return queued(joined.executionId, queue(deadlineOf(joined)));
        }
        if (gathering.reason === 'batch') {
          const full = await store.window(counter);
          if (full) {
            await closeFull(full, request.userId);
            continue;
          }
        }
        const executionId = newId('exe');
        const window: GatherWindow = {
          counter,
          executionId,
          reason: gathering.reason,
          firstAt: now,
          lastAt: now,
          count: 1,
          bytes,
          triggerJson,
          // A window outlives its close by a day at most: a lost one never holds its key for long.
          expiresAt: Math.floor(now / 1000) + gatherBounds.maxWaitSeconds + 86_400,
          ...(gathering.reason === 'batch'
            ? { items: [dataJson], closeBy: now + durationSeconds(gathering.options.timeout) * 1000 }
            : {
                lastJson: dataJson,
                periodMs: durationSeconds(gathering.options.period) * 1000,
                ...(gathering.options.maxWait && { closeBy: now + durationSeconds(gathering.options.maxWait) * 1000 }),
              }),
        };
        const until = deadlineOf(window);
        const record = queued(executionId, queue(until));
        if (!(await store.open(window, record))) continue;
        await armClose(window, request.userId, until);
        if (gathering.reason === 'batch' && gathering.options.maxSize === 1) await closeFull(window, request.userId);
        return record;
      }
      throw new ConflictError(`the ${gathering.reason} window of this key is too busy: try again`, { scriptId: request.scriptId });
    },

    /**
     * A window's close came (its one-shot, or a full batch): the run to start once it is closed, or nothing when a
     * later trigger moved a debounce (the one-shot is re-armed for the new close) or the run started already.
     */
    async closeDue(executionId: string, counter: string, userId: string): Promise<ReleasedRun | undefined> {
      // Should this process die before the run starts, the close comes again.
      await armClose({ executionId, counter }, userId, clock.now() + retryCloseMs);
      for (let attempt = 0; attempt < maxAttempts; attempt++) {
        const record = await store.queued(executionId);
        if (!record) break;
        if (record.closedAt) return releasedOf(record);
        const window = await store.window(counter);
        if (!window || window.executionId !== executionId) break;
        const deadline = deadlineOf(window);
        if (deadline > clock.now()) {
          await Promise.all([armClose(window, userId, deadline), store.postpone(executionId, isoOf(deadline))]);
          return undefined;
        }
        await store.close(window, inputOf(window), clock.nowIso());
      }
      await deps.oneShots.remove(windowName(executionId));
      return undefined;
    },

    /**
     * Starts a closed window's run through ordinary admission, once: a refusal (its day's runs, the budget) ends it
     * failed, and a second close of the same run starts nothing.
     */
    async release<Admitted extends { running: Execution; dailyCounter: string }>(released: ReleasedRun, runs: ReleasePorts<Admitted>): Promise<void> {
      const { executionId } = released;
      let admitted: Admitted;
      try {
        admitted = await runs.admit({ ...released, gathered: executionId });
      } catch (error) {
        if (!(error instanceof AppError)) throw error;
        await store.refuse(executionId, { code: error.code, message: error.message }, clock.nowIso());
        await deps.oneShots.remove(windowName(executionId));
        return;
      }
      // Held by its throttle: its record now waits in the throttle's queue, which starts it.
      if (admitted.running.status === 'queued') return void (await deps.oneShots.remove(windowName(executionId)));
      if (!(await store.start(admitted.running))) {
        await runs.releaseDailyRun(admitted.dailyCounter);
        return;
      }
      await deps.oneShots.remove(windowName(executionId));
      await runs.runAdmitted(admitted);
    },
  };
}

function releasedOf(record: Execution & Partial<GatheredInput>): ReleasedRun {
  const trigger = JSON.parse(record.triggerJson ?? 'null') as Trigger | null;
  return {
    executionId: record.executionId,
    scriptId: record.scriptId,
    userId: record.userId,
    data: record.inputJson === undefined ? null : JSON.parse(record.inputJson),
    trigger: trigger ?? record.trigger,
    ...(record.batchJson !== undefined && { batch: JSON.parse(record.batchJson) as unknown[] }),
  };
}

export type ScriptGathering = ReturnType<typeof createGathering>;
