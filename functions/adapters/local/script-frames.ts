// The frames a worker's wrapper may send over its channel. User code shares the wrapper's process and can write to
// any descriptor it holds, so every frame is checked: a frame that is not one of these, or a result that does not
// carry the invocation's id, stops the worker. Durations, memory and cost are never read from a frame.
import * as z from 'zod';
import { JsonObject } from '#platform/schemas.js';

const isJson = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

/** A printed line and the durable step it was printed in (the wrapper's names are bounded by the journal's checks). */
const printedLine = z.object({ text: z.string().max(1024 * 1024), step: z.string().max(4096).optional() });

const executionError = z.object({ code: z.string().min(1).max(64), message: z.string().max(20_000), line: z.number().int().positive().optional() });

const frame = z.discriminatedUnion('type', [
  z.object({ type: z.literal('ready') }),
  z.object({ type: z.literal('loadError'), error: executionError }),
  z.object({
    type: z.literal('resourceCall'),
    callId: z.number().int().nonnegative(),
    name: z.string().max(200),
    method: z.string().max(200),
    params: JsonObject.catch({}),
  }),
  printedLine.extend({ type: z.literal('log') }),
  z.object({
    type: z.literal('result'),
    id: z.string(),
    status: z.enum(['success', 'error', 'suspended']),
    noOp: z.literal(true).optional(),
    output: z.string().refine(isJson),
    error: executionError.nullish(),
    logs: z.array(printedLine),
  }),
]);

export type WorkerFrame = z.infer<typeof frame>;
export type ResultFrame = Extract<WorkerFrame, { type: 'result' }>;

/** The frame a line holds, or undefined when it is not one the wrapper sends. */
export function parseFrame(line: string): WorkerFrame | undefined {
  try {
    const parsed = frame.safeParse(JSON.parse(line));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
