// The `regex` operator runs users' patterns against event text on the shared dispatch path, so patterns run in
// RE2's linear-time engine (re2js, pure JavaScript): no pattern backtracks, whatever its quantifiers. RE2 syntax
// has no backreferences or lookaround; such patterns are refused when the flow is saved. The pattern is short and
// matching looks at a bounded prefix of the text, so one match costs at most a few milliseconds.
import { RE2JS } from 're2js';

export const maxPatternLength = 200;
/** Characters of a field's text the pattern sees: the engine is linear, and this bounds the line. */
export const maxTestedLength = 10_000;

/** The problem with a pattern, or undefined when it compiles in RE2. */
export function regexProblem(pattern: string): string | undefined {
  if (pattern.length === 0) return 'needs a non-empty pattern';
  if (pattern.length > maxPatternLength) return `a regex has at most ${maxPatternLength} characters`;
  try {
    RE2JS.compile(pattern);
  } catch (error) {
    return `is not a valid regular expression in RE2 syntax (no backreferences or lookaround): ${(error as Error).message}`;
  }
  return undefined;
}

/** A test of text against a pattern regexProblem accepted; linear in the (bounded) text. */
export function compileRegex(pattern: string): (text: string) => boolean {
  const expression = RE2JS.compile(pattern);
  return (text) => expression.matcher(text.slice(0, maxTestedLength)).find();
}
