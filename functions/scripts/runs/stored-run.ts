// What of a run fits its DynamoDB items (400 KB each): the caller of a synchronous run gets everything, the
// history keeps the output up to storedOutputBytes and the first log lines up to storedLogBytes. An output DynamoDB
// cannot hold as a map (nested past its 32 levels) or that carries `__proto__` keys is kept as its JSON text.
import { maxInputDepth, nestsDeeperThan } from '#platform/json-bounds.js';

const storedOutputBytes = 300_000;
export const storedLogBytes = 300_000;

/** Whether some object in `value` has an own `__proto__` key (JSON.parse makes one; copies would change the prototype). */
function holdsProtoKey(value: unknown): boolean {
  const stack = [value];
  while (stack.length) {
    const current = stack.pop();
    if (current === null || typeof current !== 'object') continue;
    if (Object.hasOwn(current, '__proto__')) return true;
    stack.push(...Object.values(current));
  }
  return false;
}

/** An output kept as a map in the execution item, and answered as is; otherwise its JSON text is. */
export const storableAsMap = (output: unknown) => !nestsDeeperThan(output, maxInputDepth) && !holdsProtoKey(output);

export function storedOutput(output: unknown, outputJson: string): { output: unknown; outputTruncated?: true; outputAsJsonText?: true } {
  if (Buffer.byteLength(outputJson) <= storedOutputBytes) return storableAsMap(output) ? { output } : { output: outputJson, outputAsJsonText: true };
  return { output: Buffer.from(outputJson).subarray(0, storedOutputBytes).toString('utf8'), outputTruncated: true };
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
