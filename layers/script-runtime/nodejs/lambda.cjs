'use strict';
// Lambda entry of a deployed script, at /opt/nodejs in the function's layer; the function's own index.cjs
// re-exports it. The platform invokes the `live` alias (or a version, for a test run) with {event, context, token}
// and reads back the same outcome the local worker reports. Resource calls go to the platform's resource-call
// function (RESOURCE_CALL_FUNCTION) with the run's signed grant, the one thing the script's role may invoke.
const { AsyncLocalStorage } = require('node:async_hooks');
const runtime = require('./runtime.cjs');

/** The grant of the invocation a call was made in, even when the call outlives it. */
const runToken = new AsyncLocalStorage();
let lambda;

async function callResource(name, method, params) {
  // Required on first use: the Lambda Node runtime ships the SDK, and scripts without resource calls never load it.
  const { LambdaClient, InvokeCommand } = require('@aws-sdk/client-lambda');
  // One attempt: a resource call is not idempotent, so a retried invocation could call the upstream twice.
  lambda ??= new LambdaClient({ maxAttempts: 1 });
  const request = { token: runToken.getStore(), resource: name, method, params };
  let response;
  try {
    response = await lambda.send(new InvokeCommand({ FunctionName: process.env.RESOURCE_CALL_FUNCTION, Payload: Buffer.from(JSON.stringify(request)) }));
  } catch (error) {
    throw runtime.resourceError(
      'RESOURCE_CALL_FAILED',
      `resources.${name}.${method}: the platform's resource-call function could not be reached (${error.name})`,
    );
  }
  return runtime.settleResourceAnswer(response.FunctionError ? undefined : Buffer.from(response.Payload ?? []).toString('utf8'), name, method);
}

const resources = runtime.createResources(callResource);
const capture = runtime.captureOutput();
let handler;
let loadError;
try {
  handler = runtime.loadHandler(`${process.env.LAMBDA_TASK_ROOT}/script.cjs`, resources);
} catch (error) {
  loadError = runtime.describe('SCRIPT_LOAD_ERROR', error, 'script.cjs');
}

exports.handler = async (payload) => {
  if (loadError) return { status: 'error', output: 'null', error: loadError, logs: [], duration: 0 };
  return runToken.run(payload.token, () => runtime.invoke(handler, capture, payload.event, payload.context, 'script.cjs', callResource));
};
