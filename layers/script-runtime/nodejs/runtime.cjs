'use strict';
// The wrapper around a user's script (DESIGN.md §3), shared by the local worker (worker.cjs) and the
// Lambda entry (lambda.cjs): loads the code, gives it `resources`, captures console output as logs[],
// calls handler(event, context) and applies SPEC.md's handler return convention.
const { format } = require('node:util');

/** Lambda's synchronous response limit (SPEC.md Limits/Scripts). */
const maxResponseBytes = 6 * 1024 * 1024;
/** A script printing past this fails: logs are stored with the execution, and unbounded output is a bug. */
const maxLogBytes = 1024 * 1024;

/** `resources[name][method](params)` resolves to the call's data; `call` crosses to the platform. */
function createResources(call) {
  const forResource = (name) =>
    new Proxy(
      {},
      {
        get: (_target, method) => (typeof method === 'string' && method !== 'then' ? (params) => call(name, method, params ?? {}) : undefined),
      },
    );
  return new Proxy({}, { get: (_target, name) => (typeof name === 'string' && name !== 'then' ? forResource(name) : undefined) });
}

/** What a script catches from a refused or failed resource call: `error.code` and `error.message`. */
const resourceError = (code, message) => Object.assign(new Error(message), { code });

/**
 * The resource-call function's answer (`{ok: true, data}` or `{ok: false, error: {code, message}}`, as JSON text) as
 * the call's data or its coded error; no text means the function itself failed.
 */
function settleResourceAnswer(text, name, method) {
  let answer;
  try {
    answer = text === undefined ? undefined : JSON.parse(text);
  } catch {
    answer = undefined;
  }
  if (!answer || typeof answer.ok !== 'boolean')
    throw resourceError('RESOURCE_CALL_FAILED', `resources.${name}.${method}: the platform's resource-call function failed`);
  if (answer.ok) return answer.data;
  throw resourceError(answer.error.code, answer.error.message);
}

/** Routes console.* and stdout/stderr writes of the running invocation into its logs, and each line to `onLine` as it comes. */
function captureOutput(onLine) {
  let current;
  const record = (text) => {
    if (!current) return;
    current.bytes += Buffer.byteLength(text);
    if (current.bytes > maxLogBytes) {
      current.overflow = true;
      return;
    }
    const line = text.endsWith('\n') ? text.slice(0, -1) : text;
    current.lines.push(line);
    if (onLine) onLine(line);
  };
  for (const level of ['log', 'info', 'warn', 'error', 'debug', 'trace']) console[level] = (...args) => record(format(...args));
  for (const stream of [process.stdout, process.stderr]) {
    stream.write = (chunk, encoding, callback) => {
      record(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString());
      if (typeof encoding === 'function') encoding();
      else if (typeof callback === 'function') callback();
      return true;
    };
  }
  return {
    begin: () => (current = { lines: [], bytes: 0, overflow: false }),
    end: () => {
      const done = current;
      current = undefined;
      return done;
    },
  };
}

/** Line of the first stack frame inside the user's script. */
function scriptLine(error, scriptFile) {
  const stack = error && typeof error.stack === 'string' ? error.stack : '';
  const match = stack
    .split('\n')
    .map((frame) => frame.match(new RegExp(`${scriptFile.replace(/[.]/g, '\\.')}:(\\d+):\\d+`)))
    .find(Boolean);
  return match ? Number(match[1]) : undefined;
}

const describe = (code, error, scriptFile) => {
  const message = error instanceof Error ? `${error.name}: ${error.message}` : `thrown: ${format(error)}`;
  const line = scriptLine(error, scriptFile);
  return { code, message, ...(line && { line }) };
};

/** Loads the script once per process, as a warm Lambda container does. */
function loadHandler(scriptPath, resources) {
  globalThis.resources = resources;
  const exported = require(scriptPath);
  const handler = typeof exported === 'function' ? exported : exported?.handler;
  if (typeof handler !== 'function') throw new Error('the script defines no handler(event, context) function');
  return handler;
}

/** SPEC.md: `{success: false, noOp: true}` is a successful no-op; `{success: false, reason}` is a failure. */
function classify(value) {
  if (value && typeof value === 'object' && value.success === false) {
    if (value.noOp === true) return { status: 'success', noOp: true };
    return { status: 'error', error: { code: 'SCRIPT_FAILURE', message: typeof value.reason === 'string' ? value.reason : 'the script reported failure' } };
  }
  return { status: 'success' };
}

function serializeOutput(value) {
  try {
    const json = JSON.stringify(value === undefined ? null : value);
    if (Buffer.byteLength(json) > maxResponseBytes)
      return { error: { code: 'RESPONSE_TOO_LARGE', message: `the result is larger than ${maxResponseBytes} bytes` } };
    return { json };
  } catch (error) {
    return { error: { code: 'RESULT_NOT_SERIALIZABLE', message: `the result is not JSON: ${error.message}` } };
  }
}

/** One invocation; never throws. `outcome.output` is JSON text so the size check is done once. */
async function invoke(handler, capture, event, context, scriptFile) {
  capture.begin();
  const started = performance.now();
  let value;
  let thrown;
  try {
    value = await handler(event, context);
  } catch (error) {
    thrown = describe('SCRIPT_ERROR', error, scriptFile);
  }
  const duration = performance.now() - started;
  const { lines, overflow } = capture.end();
  const base = { duration, logs: lines };
  if (overflow)
    return { ...base, status: 'error', output: 'null', error: { code: 'LOG_LIMIT_EXCEEDED', message: `the script printed more than ${maxLogBytes} bytes` } };
  if (thrown) return { ...base, status: 'error', output: 'null', error: thrown };
  const serialized = serializeOutput(value);
  if (serialized.error) return { ...base, status: 'error', output: 'null', error: serialized.error };
  return { ...base, ...classify(value), output: serialized.json };
}

module.exports = { createResources, resourceError, settleResourceAnswer, captureOutput, loadHandler, invoke, describe, maxResponseBytes };
