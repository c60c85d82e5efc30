// Background work on AWS: the function that accepted the request invokes itself asynchronously (InvocationType
// Event) with a job instead of an HTTP event (functions/platform/background-handler.ts tells them apart). Document
// processing (Lambda retries a failed job twice) and long runs (script executions, runFlow: the job claims its run
// first, so a repeated delivery runs nothing). Needs lambda:InvokeFunction on itself (the selfInvoke capability).
import type { LambdaClientConfig } from '@aws-sdk/client-lambda';
import type { BackgroundRunEvent, BackgroundRuns } from '#platform/ports.js';
import { traced } from '#platform/tracer.js';
import { onFirstUse } from './on-first-use.js';

const sdk = onFirstUse(() => import('@aws-sdk/client-lambda'));

/** Lambda's payload limit for asynchronous invocations. */
export const maxEventPayloadBytes = 256 * 1024;

function selfInvoker(clientConfig: LambdaClientConfig, functionName: string | undefined) {
  const client = onFirstUse(async () => traced(new (await sdk()).LambdaClient(clientConfig)));
  return async (payload: string) => {
    if (!functionName) throw new Error('AWS_LAMBDA_FUNCTION_NAME is unset: background jobs run inside a Lambda function');
    const { InvokeCommand } = await sdk();
    const result = await (await client()).send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: payload }));
    if (result.StatusCode !== 202) throw new Error(`asynchronous invocation of ${functionName} answered ${result.StatusCode}`);
  };
}

/**
 * `run` is what the invoked function does with the job; it runs here instead, to its end, only when the job is too
 * large for an asynchronous invocation (a run's data past 256 KB).
 */
export function createLambdaBackgroundRuns<J, R>(
  run: (job: J) => Promise<R>,
  clientConfig: LambdaClientConfig,
  functionName: string | undefined,
): BackgroundRuns<J, R> {
  const invoke = selfInvoker(clientConfig, functionName);
  return {
    async start(job) {
      const payload = JSON.stringify({ backgroundRun: job } satisfies BackgroundRunEvent<J>);
      if (Buffer.byteLength(payload) > maxEventPayloadBytes) return { ended: run(job), detached: false };
      await invoke(payload);
      return { detached: true };
    },
  };
}
