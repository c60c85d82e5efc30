// What of a run fits its DynamoDB items (400 KB each): the caller of a synchronous run gets everything, the
// history keeps the output up to storedOutputBytes and the first log lines up to storedLogBytes.

const storedOutputBytes = 300_000;
const storedLogBytes = 300_000;

export function storedOutput(output: unknown, outputJson: string): { output: unknown; outputTruncated?: true } {
  if (Buffer.byteLength(outputJson) <= storedOutputBytes) return { output };
  return { output: Buffer.from(outputJson).subarray(0, storedOutputBytes).toString('utf8'), outputTruncated: true };
}

export function storedLogs(lines: string[]): string[] {
  const kept: string[] = [];
  let bytes = 0;
  for (const line of lines) {
    bytes += Buffer.byteLength(line) + 1;
    if (bytes > storedLogBytes) return [...kept, `[${lines.length - kept.length} more log lines not kept: the stored log is limited to ${storedLogBytes} bytes]`];
    kept.push(line);
  }
  return kept;
}
