// Debounce and batch, the options that gather triggers before a run starts, as scripts' config and flows declare
// them: their shapes, their bounds, and what a window's length is. The gathered state lives in one DynamoDB item per
// window (the scripts' gather store), so the bounds follow from an item's 400 KB.
import * as z from 'zod';
import { KeyPath } from './flow-control.js';

/** A window holds at most this much of its triggers' data (JSON bytes): an item is at most 400 KB with its own fields. */
export const maxGatheredBytes = 350_000;

export const gatherBounds = {
  /** The data of one trigger of a batch (JSON bytes): a batch of 64 KB triggers closes after 5 of them. */
  batchItemBytes: 64 * 1024,
  /** The data debounce keeps of the last trigger (JSON bytes). */
  debounceDataBytes: maxGatheredBytes,
  batchMaxSize: 1000,
  /** Debounce periods and batch timeouts, in seconds: at least a second, at most a day. */
  periodSeconds: { min: 1, max: 24 * 60 * 60 },
  /** Debounce's maxWait, in seconds: at most a week. */
  maxWaitSeconds: 7 * 24 * 60 * 60,
} as const;

/** A length of time as DESIGN's options write it: exactly one of seconds, minutes, hours. */
export const Duration = z
  .strictObject({
    seconds: z.number().int().positive().optional(),
    minutes: z.number().int().positive().optional(),
    hours: z.number().int().positive().optional(),
  })
  .refine((duration) => Object.keys(duration).length === 1, 'exactly one of seconds, minutes, hours');
export type Duration = z.infer<typeof Duration>;

export const durationSeconds = ({ seconds = 0, minutes = 0, hours = 0 }: Duration): number => seconds + minutes * 60 + hours * 3600;

const { min, max } = gatherBounds.periodSeconds;
const periodBound = (duration: Duration) => durationSeconds(duration) >= min && durationSeconds(duration) <= max;
const Period = Duration.refine(periodBound, `from ${min} second to ${max / 3600} hours`);

export const DebounceOptions = z
  .strictObject({
    period: Period.describe('the quiet time after the last trigger before the run starts: {seconds|minutes|hours}, 1 s to 24 h'),
    key: KeyPath.optional().describe('a dotted path into event.data: each value debounces on its own'),
    maxWait: Duration.refine((duration) => durationSeconds(duration) <= gatherBounds.maxWaitSeconds, 'at most 7 days')
      .optional()
      .describe('the longest a run waits after the first trigger of its window, however many follow: at least period'),
  })
  .refine((options) => !options.maxWait || durationSeconds(options.maxWait) >= durationSeconds(options.period), {
    message: 'maxWait must be at least period',
    path: ['maxWait'],
  })
  .describe("A run starts once no trigger came for `period` (per key value), with the last trigger's data; maxWait bounds the delay");
export type DebounceOptions = z.infer<typeof DebounceOptions>;

export const BatchOptions = z
  .strictObject({
    maxSize: z
      .number()
      .int()
      .min(1)
      .max(gatherBounds.batchMaxSize)
      .describe(`triggers per run, 1 to ${gatherBounds.batchMaxSize}; a batch also closes when its data reaches ${maxGatheredBytes} bytes`),
    timeout: Period.describe('how long after its first trigger a batch that is not full starts: {seconds|minutes|hours}, 1 s to 24 h'),
    key: KeyPath.optional().describe('a dotted path into event.data: each value batches on its own'),
  })
  .describe(`Triggers gather into one run whose event.batch[] holds their data in arrival order (each at most ${gatherBounds.batchItemBytes} bytes)`);
export type BatchOptions = z.infer<typeof BatchOptions>;

/** What gathers a script's or flow's triggers; one of the two at most. */
export type Gathering = { reason: 'debounce'; options: DebounceOptions } | { reason: 'batch'; options: BatchOptions };

export const gatheringOf = (config: { debounce?: DebounceOptions | null; batch?: BatchOptions | null }): Gathering | undefined =>
  config.debounce ? { reason: 'debounce', options: config.debounce } : config.batch ? { reason: 'batch', options: config.batch } : undefined;
