// The bounds of durable runs, checked by the engine (the wrappers check the same first, for a clearer error in the
// script): step names, a step's stored result, wait durations; and the bounds of a run's journal and of the waits a
// run and a user hold open (settings, so a test platform can start with small ones).
import * as z from 'zod';
import protocol from '../../layers/script-runtime/durable-protocol.json' with { type: 'json' };

/** The checkpoint and replay protocol the script runtimes share with the engine: one file, shipped in their layer. */
export const durableProtocol = protocol;

/** A journal entry's name with its branch prefixes: within DynamoDB's 1 KB sort key. */
export const maxEntryNameLength = protocol.limits.maxEntryNameLength;
/** At most this many branches per `map` or `parallel` call. */
export const maxBranches = protocol.limits.maxBranches;

/** A step's result is stored in one journal item (DynamoDB's 400 KB), with room for the rest of the item. */
export const maxStepResultBytes = protocol.limits.maxStepResultBytes;
/** The longest wait, as AWS Lambda durable functions allow one execution to last. */
export const maxWaitSeconds = protocol.limits.maxWaitSeconds;
/** A durable run's input travels with every invocation: bounded like a step result. */
export const maxDurableInputBytes = 256 * 1024;

/**
 * A result up to this size stays in its journal item; a larger one goes to the blob store and the item keeps its
 * size. Every resume reads the journal's items, so they stay small whatever the steps return.
 */
export const inlineResultBytes = 16 * 1024;
/**
 * An invocation is handed at most this much of its journal (on AWS it travels in the invoke payload, at most 6 MB
 * with the run's input); the runtime asks for what was left out (`entry`) when the code reaches it.
 */
export const handedJournalBytes = 1024 * 1024;

export interface DurableLimits {
  /** Journal entries (steps and waits) per run. */
  maxSteps: number;
  /** Bytes of results and errors per run, inline and offloaded. */
  maxJournalBytes: number;
  /** Waits a run holds open at once. */
  maxOpenWaitsPerRun: number;
  /** Waits all of a user's runs hold open at once: on AWS each is an EventBridge Scheduler schedule of the account. */
  maxOpenWaitsPerUser: number;
}

export const defaultDurableLimits: DurableLimits = {
  maxSteps: 10_000,
  maxJournalBytes: 50 * 1024 * 1024,
  maxOpenWaitsPerRun: 1_000,
  maxOpenWaitsPerUser: 10_000,
};

/**
 * The error codes a script catches from the step API (`limitExceeded`, a run past one of DurableLimits, fails the run
 * whatever the code does with the error), and those of completing a callback that is unknown or no longer waits.
 */
export const durableErrorCodes = { ...protocol.errorCodes, notFound: 'NOT_FOUND', conflict: 'CONFLICT' } as const;

const { reservedNamePrefix } = protocol.limits;
/**
 * Names of journal entries; the reserved prefix (`#`) starts the journal's own items. The code names its operations
 * with up to maxNameLength characters (the runtimes check that); a map's or parallel's branches prefix theirs with `<name>/<index>/`.
 */
export const StepName = z
  .string()
  .min(1)
  .max(maxEntryNameLength)
  .refine((name) => !name.startsWith(reservedNamePrefix), `a step name may not start with ${reservedNamePrefix}`);

const unit = z.number().finite().nonnegative();
const units = protocol.durationUnits;
/** `{seconds|minutes|hours|days}`, added up; more than zero and at most a year. */
export const Duration = z
  .strictObject({ seconds: unit.optional(), minutes: unit.optional(), hours: unit.optional(), days: unit.optional() })
  .transform((d) => (d.seconds ?? 0) * units.seconds + (d.minutes ?? 0) * units.minutes + (d.hours ?? 0) * units.hours + (d.days ?? 0) * units.days)
  .refine((seconds) => seconds > 0, 'a duration must be more than 0 seconds')
  .refine((seconds) => seconds <= maxWaitSeconds, `a duration may be at most 1 year (${maxWaitSeconds} seconds)`);

/**
 * Why a value is not storable as a step result, or undefined when it is: plain JSON only (no functions, BigInt,
 * symbols, cycles, NaN or Infinity), at most maxStepResultBytes as JSON text.
 */
export function unstorableResult(value: unknown): { code: string; message: string } | undefined {
  const seen = new Set<object>();
  const walk = (node: unknown, path: string): string | undefined => {
    if (node === null || typeof node === 'string' || typeof node === 'boolean') return undefined;
    if (typeof node === 'number') return Number.isFinite(node) ? undefined : `${path} is ${node}`;
    if (typeof node !== 'object') return `${path} is a ${typeof node}`;
    if (seen.has(node)) return `${path} refers back to itself`;
    seen.add(node);
    const entries = Array.isArray(node) ? node.map((item, index) => [String(index), item] as const) : Object.entries(node);
    for (const [key, item] of entries) {
      const why = walk(item === undefined && !Array.isArray(node) ? null : item, `${path}.${key}`);
      if (why) return why;
    }
    seen.delete(node);
    return undefined;
  };
  const why = walk(value === undefined ? null : value, 'result');
  if (why) return { code: durableErrorCodes.resultNotJson, message: `a step result must be JSON: ${why}` };
  const bytes = Buffer.byteLength(JSON.stringify(value ?? null));
  if (bytes > maxStepResultBytes)
    return { code: durableErrorCodes.resultTooLarge, message: `a step result is at most ${maxStepResultBytes} bytes of JSON; this one is ${bytes}` };
  return undefined;
}
