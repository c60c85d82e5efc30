// What of a run fits its DynamoDB items (400 KB each): the caller of a synchronous run gets everything, the
// history keeps the output up to storedOutputBytes and the first log lines up to storedLogBytes. An output nested
// past maxInputDepth is answered and kept as its JSON text.
import { maxInputDepth, nestsDeeperThan } from '#platform/json-bounds.js';

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

export function storedLogs(lines: string[]): string[] {
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > storedLogBytes)
      return [...kept, `[${lines.length - kept.length} more log lines not kept: the stored log is limited to ${storedLogBytes} bytes]`];
    kept.push(line);
  }
  return kept;
}
