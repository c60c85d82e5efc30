'use strict';
// Lambda entry of a deployed script, at /opt/nodejs in the function's layer; the function's own index.cjs
// re-exports it. The platform invokes the `live` alias (or a version, for a test run) with {event, context}
// and reads back the same outcome the local worker reports.
const runtime = require('./runtime.cjs');

// The resource-call function a Lambda-deployed script would invoke is not part of the stack yet.
const resources = runtime.createResources(async (name, method) => {
  throw Object.assign(new Error(`resources.${name}.${method}: resource calls are not available to scripts deployed on AWS yet`), { code: 'RESOURCES_UNAVAILABLE' });
});
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
  return runtime.invoke(handler, capture, payload.event, payload.context, 'script.cjs');
};
