// Document processing on AWS: the function that accepted the upload invokes itself asynchronously (InvocationType
// Event) with a job instead of an HTTP event; Lambda retries a failed job twice. Needs lambda:InvokeFunction on itself.
import { InvokeCommand, LambdaClient, type LambdaClientConfig } from '@aws-sdk/client-lambda';
import type { DocumentJobEvent, DocumentJobs } from '#functions/documents/ports.js';
import { envNames } from '#platform/env-names.js';
import { readEnv } from '#platform/settings.js';
import { traced } from '#platform/tracer.js';

export function createLambdaSelfInvoke(clientConfig: LambdaClientConfig = {}, functionName = readEnv(envNames.lambdaFunctionName)): DocumentJobs {
  const client = traced(new LambdaClient(clientConfig));
  return {
    async enqueue(documentId) {
      if (!functionName) throw new Error('AWS_LAMBDA_FUNCTION_NAME is unset: document jobs run inside a Lambda function');
      const payload: DocumentJobEvent = { documentJob: { documentId } };
      const result = await client.send(new InvokeCommand({ FunctionName: functionName, InvocationType: 'Event', Payload: JSON.stringify(payload) }));
      if (result.StatusCode !== 202) throw new Error(`asynchronous invocation of ${functionName} answered ${result.StatusCode}`);
    },
  };
}
