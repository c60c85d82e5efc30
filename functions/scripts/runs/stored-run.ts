// What of a run fits its DynamoDB items (400 KB each): the caller of a synchronous run gets everything, the
// history keeps the output up to storedOutputBytes and the first log lines of the whole run (every invocation of a
// durable run) up to storedLogBytes. An output nested past maxInputDepth is answered and kept as its JSON text.
import { maxInputDepth, nestsDeeperThan } from '#platform/json-bounds.js';
import type { LogLine } from '../model.js';
import type { PrintedLine } from './runtime-port.js';

const storedOutputBytes = 300_000;
export const storedLogBytes = 300_000;

/** What the caller gets: the output, or its JSON text when it nests past maxInputDepth (recursive code overflows on it). */
export const answeredOutput = (output: unknown, outputJson: string): unknown => (nestsDeeperThan(output, maxInputDepth) ? outputJson : output);

/** The output as the record keeps it (the store writes it as JSON text): a prefix of its text past storedOutputBytes. */
export function storedOutput(output: unknown, outputJson: string): { output: unknown; outputTruncated?: true; outputAsJsonText?: true } {
  if (Buffer.byteLength(outputJson) > storedOutputBytes)
    return { output: Buffer.from(outputJson).subarray(0, storedOutputBytes).toString('utf8'), outputTruncated: true };
  const answered = answeredOutput(output, outputJson);
  return answered === output ? { output } : { output: answered, outputAsJsonText: true };
}

/** A segment of the stored log without its step's name: the invocation and its count of lines. */
const segmentBytes = 32;
/** What a line costs in the stored log: its text and newline, and (in a step) a segment naming the step, at worst one per line. */
const storedLineBytes = (line: PrintedLine) => Buffer.byteLength(line.text) + 1 + (line.step === undefined ? 0 : Buffer.byteLength(line.step) + segmentBytes);

/**
 * An invocation's lines as the run's log keeps them, after the `bytesBefore` earlier invocations stored. The first line
 * past storedLogBytes is replaced by a note that says so; later invocations then add nothing.
 */
export function storedLogs(lines: PrintedLine[], invocation: number, bytesBefore = 0): { lines: LogLine[]; bytes: number } {
  const kept: LogLine[] = [];
  if (!lines.length || bytesBefore >= storedLogBytes) return { lines: [], bytes: 0 };
  let bytes = bytesBefore + segmentBytes;
  for (const line of lines) {
    bytes += storedLineBytes(line);
    if (bytes > storedLogBytes) {
      const note = `[${lines.length - kept.length} more log lines of invocation ${invocation}, and every line of later invocations, not kept: a run's stored log is limited to ${storedLogBytes} bytes]`;
      return { lines: [...kept, { text: note, invocation }], bytes: storedLogBytes - bytesBefore };
    }
    kept.push({ ...line, invocation });
  }
  return { lines: kept, bytes: bytes - bytesBefore };
}
