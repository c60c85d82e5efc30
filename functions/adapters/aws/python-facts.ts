// Python lint on AWS: the Node runtime has no python3, so the stack's Python function (lib/python-lint.ts) reads the
// code with Python's own `ast` (functions/scripts/authoring/lint/python_facts.py) and answers the facts.
import { traced } from '#platform/tracer.js';
import { onFirstUse } from './on-first-use.js';

const lambda = onFirstUse(async () => {
  const sdk = await import('@aws-sdk/client-lambda');
  return { sdk, client: traced(new sdk.LambdaClient({})) };
});

/** `functionName`: the stack's Python lint function (PYTHON_LINT_FUNCTION, given by the root). */
export async function lambdaPythonFacts<T>(code: string, functionName: string): Promise<T> {
  const { sdk, client } = await lambda();
  const response = await client.send(new sdk.InvokeCommand({ FunctionName: functionName, Payload: JSON.stringify({ code }) }));
  const payload = Buffer.from(response.Payload ?? new Uint8Array()).toString('utf8');
  if (response.FunctionError) throw new Error(`the Python lint function failed: ${payload.slice(0, 500)}`);
  return JSON.parse(payload) as T;
}
