// A version's code as the runtime wrapper loads it, checked first: a syntax error refuses the deploy (or the
// test run) with its line, and nothing is deployed.
import type { CodeFacts } from '../authoring/lint/code-facts.js';
import type { RuntimeLabel } from '../model.js';
import { pythonFacts } from '../authoring/python.js';
import type { PreparedCode } from './runtime-port.js';

/** `python`: the interpreter that checks Python code (the scripts area's setting). */
export async function prepareCode(runtime: RuntimeLabel, code: string, python: string): Promise<PreparedCode> {
  // The JavaScript parser loads with the first code prepared: most handlers that compose the scripts services never prepare any.
  const { CodeSyntaxError, toCommonJs } = await import('../authoring/node-code.js');
  if (runtime === 'nodejs18') return { fileName: 'script.cjs', source: toCommonJs(code) };
  // Where python3 is missing (a Node Lambda function), Lambda's own import reports the syntax error with its line.
  const facts = await pythonFacts<CodeFacts>(python, code);
  if (facts?.syntaxError) throw new CodeSyntaxError(facts.syntaxError.message, facts.syntaxError.line, facts.syntaxError.column, code);
  return { fileName: 'script.py', source: code };
}
