// The `regex` operator runs users' patterns against event text on the shared dispatch path, so a pattern that
// can backtrack exponentially is refused when the flow is saved (there is no linear-time engine in Node 20):
// no repeated group that itself repeats or alternates (`(a+)+`, `(a|aa)*`), no backreferences, a short
// pattern, and matching looks at a bounded prefix of the text.

export const maxPatternLength = 200;
/** Characters of a field's text the pattern sees; bounds even polynomial backtracking. */
export const maxTestedLength = 10_000;

interface Group {
  repeats: boolean;
  alternates: boolean;
}

/** Where `pattern[index]` starts a repeating quantifier (`*`, `+`, `{n,}`, `{n,m}` with m > 1), its length; else 0. */
function repeatingQuantifierAt(pattern: string, index: number): number {
  const char = pattern[index];
  if (char === '*' || char === '+') return 1;
  if (char !== '{') return 0;
  const match = /^\{(\d+)(,(\d*))?\}/.exec(pattern.slice(index));
  if (!match) return 0;
  const repeats = match[2] !== undefined && (match[3] === '' || Number(match[3]) > 1);
  return repeats || Number(match[1]) > 1 ? match[0].length : 0;
}

/** The problem with a pattern, or undefined when it is safe to run. */
export function regexProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'needs a non-empty pattern';
  if (pattern.length > maxPatternLength) return `a regex has at most ${maxPatternLength} characters`;
  try {
    new RegExp(pattern);
  } catch (error) {
    return `is not a valid regular expression: ${(error as Error).message}`;
  }
  const stack: Group[] = [{ repeats: false, alternates: false }];
  let inClass = false;
  for (let index = 0; index < pattern.length; index++) {
    const char = pattern[index]!;
    if (char === '\\') {
      const next = pattern[index + 1] ?? '';
      if (!inClass && (/[1-9]/.test(next) || next === 'k')) return 'may not use backreferences';
      index++;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (char === '[') inClass = true;
    else if (char === '(') stack.push({ repeats: false, alternates: false });
    else if (char === '|') stack.at(-1)!.alternates = true;
    else if (char === ')') {
      const group = stack.pop()!;
      const quantifier = repeatingQuantifierAt(pattern, index + 1);
      if (quantifier && (group.repeats || group.alternates)) {
        return 'may not repeat a group that itself repeats or has alternatives (catastrophic backtracking); simplify the pattern';
      }
      if (group.repeats || quantifier) stack.at(-1)!.repeats = true;
    } else if (repeatingQuantifierAt(pattern, index)) stack.at(-1)!.repeats = true;
  }
  return undefined;
}
