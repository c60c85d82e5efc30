// Flow control of runs (throttle, rateLimit, priority, singleton, queueTtl; debounce and batch beside them): the one
// block of options a script's `config` and a flow both carry, with the bounds the platform can honour. Each `key` is a
// dotted path into a run's `event.data`; runs without a value there share the empty key.
import * as z from 'zod';

/** Segments of a key path: letters, digits, `_` and `-`. */
export const keyPathPattern = /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/;
export const maxKeyPathLength = 200;

export const KeyPath = z
  .string()
  .max(maxKeyPathLength)
  .regex(keyPathPattern, 'a dotted path into event.data: segments of letters, digits, _ and -')
  .describe('a dotted path into the run event.data (e.g. customerId or order.region); runs without a value there share one key');

export const flowControlLimits = {
  /** Runs per period a throttle or rate limit may allow: above it the per-script and per-user run limits bind first. */
  maxLimit: 10_000,
  /** Starts per second the platform can sustain for one script (its 10 slots, runs of about 100 ms). */
  maxRatePerSecond: 100,
  periodMs: { min: 1_000, max: 24 * 3_600_000 },
  queueTtlMs: { min: 1_000, max: 7 * 24 * 3_600_000 },
  /** Seconds a priority may move a run ahead of (or behind) its place in the queue. */
  prioritySeconds: 600,
} as const;

const Duration = z
  .strictObject({
    seconds: z.number().int().min(0).max(604_800).optional(),
    minutes: z.number().int().min(0).max(10_080).optional(),
    hours: z.number().int().min(0).max(168).optional(),
  })
  .describe('{seconds|minutes|hours}, summed');

export type FlowDuration = z.output<typeof Duration>;

export const durationMs = (duration: FlowDuration): number => ((duration.seconds ?? 0) + (duration.minutes ?? 0) * 60 + (duration.hours ?? 0) * 3600) * 1000;

const boundedDuration = (bounds: { min: number; max: number }, what: string) =>
  Duration.refine((duration) => durationMs(duration) >= bounds.min && durationMs(duration) <= bounds.max, {
    message: `${what} is from ${bounds.min / 1000} seconds to ${bounds.max / 3_600_000} hours`,
  });

/** At most `limit` per `period`, and never faster than the platform starts runs. */
const Window = (what: string) =>
  z
    .strictObject({
      limit: z.number().int().min(1).max(flowControlLimits.maxLimit),
      period: boundedDuration(flowControlLimits.periodMs, 'a period'),
      key: KeyPath.optional(),
    })
    .refine((window) => (window.limit * 1000) / durationMs(window.period) <= flowControlLimits.maxRatePerSecond, {
      message: `${what} above ${flowControlLimits.maxRatePerSecond} runs per second cannot be honoured`,
      path: ['limit'],
    });

export const singletonModes = ['skip', 'cancel'] as const;

/** The options of the flow-control block this module owns (debounce and batch join them in the same block). */
export const flowControlFields = {
  throttle: Window('a throttle')
    .nullable()
    .optional()
    .describe('at most `limit` runs start per `period` per key value; the rest queue (none is dropped) and start as the window allows; null removes it'),
  rateLimit: Window('a rate limit')
    .nullable()
    .optional()
    .describe('at most `limit` runs per `period` per key value; the rest are skipped (an execute answers 429 RATE_LIMITED); null removes it'),
  priority: z
    .strictObject({ key: KeyPath.describe('a dotted path to a number in event.data: seconds (-600 to 600) a queued run moves ahead') })
    .nullable()
    .optional()
    .describe('a queued run moves ahead by the number of seconds at `key` (-600 to 600); null removes it'),
  singleton: z
    .strictObject({ key: KeyPath.optional(), mode: z.enum(singletonModes) })
    .nullable()
    .optional()
    .describe('one run per key value at a time: a new trigger is skipped (skip) or cancels the running one (cancel); null removes it'),
  queueTtl: boundedDuration(flowControlLimits.queueTtlMs, 'a queueTtl')
    .nullable()
    .optional()
    .describe('a run still queued this long after its trigger ends `expired` without running; null removes it'),
};

/** Flow control as stored: the options set (null in a patch removes one). */
export interface FlowControl {
  throttle?: { limit: number; period: FlowDuration; key?: string };
  rateLimit?: { limit: number; period: FlowDuration; key?: string };
  priority?: { key: string };
  singleton?: { key?: string; mode: (typeof singletonModes)[number] };
  queueTtl?: FlowDuration;
}

export const flowControlNames = ['throttle', 'rateLimit', 'priority', 'singleton', 'queueTtl'] as const satisfies readonly (keyof FlowControl)[];

/** What the scheduler puts on the bus for run queues: a throttle window opens, or a queued run's queueTtl passes. */
export const runQueueWakeType = 'platform.run_queue_wake';

/** Why a run waits in its queue, and why one did not run. */
export const queueReasons = ['concurrency', 'throttle', 'debounce', 'batch'] as const;
export type QueueReason = (typeof queueReasons)[number];
export const skipReasons = ['rateLimit', 'singleton'] as const;
export type SkipReason = (typeof skipReasons)[number];
/** Why a run ended without running: skipped by its rate limit or singleton, or expired in its queue (queueTtl). */
export type NotRunReason = SkipReason | 'queueTtl';

/** What every view of a queued run shows: why it waits, for which key value, and until when (at the earliest). */
export interface QueuePlace {
  reason: QueueReason;
  key?: string;
  until?: string;
}
