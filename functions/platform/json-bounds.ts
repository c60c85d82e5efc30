// Bounds on user JSON: how deep a value may nest (DynamoDB refuses items nested past 32 levels, and deep values overflow
// recursive code) and how much of a refused value an error echoes back in details.value.

/** Levels of nesting a request's JSON may hold: stored inside an item's own attributes, it stays under DynamoDB's 32. */
export const maxInputDepth = 24;
/** Characters of a refused value echoed in details.value. */
export const maxEchoChars = 1000;
const maxEchoDepth = 8;

/** Whether `value` nests deeper than `limit` (`{}` is 1, `{a: []}` is 2), walked without recursion. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length) {
    const [current, depth] = stack.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth + 1 > limit) return true;
    for (const child of Object.values(current)) stack.push([child, depth + 1]);
  }
  return false;
}

const cut = (text: string) => (text.length > maxEchoChars ? `${text.slice(0, maxEchoChars)}…` : text);

/** What details.value may carry of a refused value: itself when small, else a cut-down JSON text. */
export function boundedEcho(value: unknown): unknown {
  if (typeof value === 'string') return cut(value);
  if (value === null || typeof value !== 'object') return value;
  if (nestsDeeperThan(value, maxEchoDepth)) return `[a value nested deeper than ${maxEchoDepth} levels]`;
  const text = JSON.stringify(value) ?? '';
  return text.length > maxEchoChars ? cut(text) : value;
}
