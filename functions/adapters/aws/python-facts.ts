// Python lint on AWS: the Node runtime has no python3, so the stack's Python function (lib/python-lint.ts) reads the
// code with Python's own `ast` (functions/scripts/authoring/lint/python_facts.py) and answers the facts.
import { InvokeCommand, LambdaClient } from '@aws-sdk/client-lambda';
import { traced } from '#platform/tracer.js';

let client: LambdaClient | undefined;

/** `functionName`: the stack's Python lint function (PYTHON_LINT_FUNCTION, given by the root). */
export async function lambdaPythonFacts<T>(code: string, functionName: string): Promise<T> {
  client ??= traced(new LambdaClient({}));
  const response = await client.send(new InvokeCommand({ FunctionName: functionName, Payload: JSON.stringify({ code }) }));
  const payload = Buffer.from(response.Payload ?? new Uint8Array()).toString('utf8');
  if (response.FunctionError) throw new Error(`the Python lint function failed: ${payload.slice(0, 500)}`);
  return JSON.parse(payload) as T;
}
