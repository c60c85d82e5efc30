'use strict';
// The wrapper around a user's script (DESIGN.md §3), shared by the local worker (worker.cjs) and the
// Lambda entry (lambda.cjs): loads the code, gives it `resources`, captures console output as logs[],
// calls handler(event, context) and applies SPEC.md's handler return convention.
const { AsyncLocalStorage } = require('node:async_hooks');
const { format } = require('node:util');

/** Lambda's synchronous response limit (SPEC.md Limits/Scripts). */
const maxResponseBytes = 6 * 1024 * 1024;
/** A script printing past this fails: logs are stored with the execution, and unbounded output is a bug. */
const maxLogBytes = 1024 * 1024;

/** `resources[name][method](params)` resolves to the call's data; `call` crosses to the platform. */
function createResources(call) {
  // `#` names are the platform's own channels (a durable run's checkpoints go through the step API only).
  const refused = (name) => () => Promise.reject(resourceError('RESOURCE_NOT_ALLOWED', `${name} is not a resource: names starting with # are the platform's`));
  const forResource = (name) =>
    new Proxy(
      {},
      {
        get: (_target, method) =>
          typeof method === 'string' && method !== 'then' ? (name.startsWith('#') ? refused(name) : (params) => call(name, method, params ?? {})) : undefined,
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

/** The durable step whose function is running: a line printed in it (or in work it started) is tagged with its name. */
const runningStep = new AsyncLocalStorage();

/**
 * Routes console.* and stdout/stderr writes of the running invocation into its logs as `{text, step?}`, and each line
 * to `onLine` as it comes.
 */
function captureOutput(onLine) {
  let current;
  const record = (text) => {
    if (!current) return;
    current.bytes += Buffer.byteLength(text);
    if (current.bytes > maxLogBytes) {
      current.overflow = true;
      return;
    }
    const step = runningStep.getStore();
    const line = { text: text.endsWith('\n') ? text.slice(0, -1) : text, ...(step !== undefined && { step }) };
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

/** A durable script's step API (the design's "Durable runs"): the same rules as the platform's engine checks. */
const durable = {
  channel: '#durable',
  maxResultBytes: 256 * 1024,
  maxWaitSeconds: 365 * 24 * 60 * 60,
};
const durableError = (code, message) => Object.assign(new Error(message), { code });

/** Why a step result is not plain JSON within the bound, or undefined. */
function unstorable(value) {
  const seen = new Set();
  const walk = (node, path) => {
    if (node === null || typeof node === 'string' || typeof node === 'boolean') return undefined;
    if (typeof node === 'number') return Number.isFinite(node) ? undefined : `${path} is ${node}`;
    if (typeof node !== 'object') return `${path} is a ${typeof node}`;
    if (seen.has(node)) return `${path} refers back to itself`;
    seen.add(node);
    const entries = Array.isArray(node) ? node.map((item, index) => [String(index), item]) : Object.entries(node);
    for (const [key, item] of entries) {
      const why = walk(item === undefined && !Array.isArray(node) ? null : item, `${path}.${key}`);
      if (why) return why;
    }
    seen.delete(node);
    return undefined;
  };
  const why = walk(value === undefined ? null : value, 'result');
  if (why) return durableError('DURABLE_RESULT_NOT_JSON', `a step result must be JSON: ${why}`);
  const bytes = Buffer.byteLength(JSON.stringify(value ?? null));
  if (bytes > durable.maxResultBytes)
    return durableError('DURABLE_RESULT_TOO_LARGE', `a step result is at most ${durable.maxResultBytes} bytes of JSON; this one is ${bytes}`);
  return undefined;
}

/** `{seconds|minutes|hours|days}` in seconds; a refusal for anything else, nothing positive, or past a year. */
function durationSeconds(what, duration) {
  const units = { seconds: 1, minutes: 60, hours: 3600, days: 86400 };
  if (!duration || typeof duration !== 'object' || Array.isArray(duration))
    throw durableError('DURABLE_INVALID_ARGUMENT', `${what} must be {seconds|minutes|hours|days}`);
  let total = 0;
  for (const [unit, amount] of Object.entries(duration)) {
    if (!Object.hasOwn(units, unit)) throw durableError('DURABLE_INVALID_ARGUMENT', `${what}: unknown unit ${unit} (seconds, minutes, hours or days)`);
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0)
      throw durableError('DURABLE_INVALID_ARGUMENT', `${what}.${unit} must be a number of at least 0`);
    total += amount * units[unit];
  }
  if (total <= 0) throw durableError('DURABLE_INVALID_ARGUMENT', `${what} must be more than 0 seconds`);
  if (total > durable.maxWaitSeconds) throw durableError('DURABLE_INVALID_ARGUMENT', `${what} may be at most 1 year (${durable.maxWaitSeconds} seconds)`);
  return duration;
}

const checkName = (name) => {
  if (typeof name !== 'string' || name.length === 0 || name.length > 200 || name.startsWith('#'))
    throw durableError('DURABLE_INVALID_ARGUMENT', 'a step name is a string of 1 to 200 characters, not starting with #');
};

/**
 * The step API over the run's journal: stored steps replay, new ones are checkpointed over `call` (the resource-call
 * channel), and a wait not yet ended checkpoints itself and suspends the invocation (`suspended` resolves; the
 * handler's promise is left behind, as AWS's durable SDK leaves it). The journal handed over is bounded: an entry
 * whose result was `held`, or one left out of a `partial` journal, is asked for when the code reaches it.
 */
function createDurableContext({ entries, partial }, call) {
  const used = new Set();
  let suspend;
  const suspended = new Promise((resolve) => (suspend = resolve));
  const never = () => {
    suspend();
    return new Promise(() => undefined);
  };
  const claim = async (name) => {
    checkName(name);
    if (used.has(name)) throw durableError('DURABLE_NAME_REUSED', `the name ${name} is used twice in this run: step and wait names are unique per run`);
    used.add(name);
    const entry = Object.hasOwn(entries, name) ? entries[name] : undefined;
    if (entry?.held || (!entry && partial)) return (await call(durable.channel, 'entry', { name })).entry ?? undefined;
    return entry;
  };
  const settled = (entry, name) => {
    if (entry.status === 'waiting') return never();
    if (entry.error) throw durableError(entry.error.code, entry.error.message);
    if (entry.status === 'cancelled') throw durableError('CANCELLED', `${name} was cancelled`);
    return entry.result === undefined ? null : JSON.parse(entry.result);
  };
  async function openWait(kind, name, args, afterOpen) {
    const entry = await claim(name);
    if (entry) return settled(entry, name);
    const reply = await call(durable.channel, 'wait', { kind, name, args });
    if (afterOpen) await afterOpen(reply);
    return never();
  }
  const api = {
    async step(name, fn) {
      const entry = await claim(name);
      if (typeof fn !== 'function') throw durableError('DURABLE_INVALID_ARGUMENT', `step ${name} needs a function to run`);
      if (entry) return settled(entry, name);
      const started = performance.now();
      let value;
      try {
        value = await runningStep.run(name, fn);
      } catch (error) {
        const failure = {
          code: typeof error?.code === 'string' ? error.code.slice(0, 64) : 'STEP_FAILED',
          message: String(error?.message ?? error).slice(0, 20000),
        };
        await call(durable.channel, 'step', { name, error: failure, durationMs: performance.now() - started });
        throw error;
      }
      const refused = unstorable(value);
      if (refused) throw refused;
      const stored = await call(durable.channel, 'step', { name, result: value ?? null, durationMs: performance.now() - started });
      return JSON.parse(stored.result);
    },
    async wait(name, duration) {
      checkName(name);
      return openWait('wait', name, { duration: durationSeconds('wait duration', duration) });
    },
    async waitForCallback(name, submitter, options = {}) {
      checkName(name);
      if (typeof submitter !== 'function')
        throw durableError('DURABLE_INVALID_ARGUMENT', `waitForCallback ${name} needs a submitter(callbackId, callbackUrl) function`);
      const args = options.timeout === undefined ? {} : { timeout: durationSeconds('timeout', options.timeout) };
      return openWait('callback', name, args, (reply) => submitter(reply.callbackId, reply.callbackUrl));
    },
    /** Resolves with `{decision, by, comment, decidedAt}`: a reject is an answer; only the timeout throws (TIMEOUT). */
    async waitForApproval(name, options = {}) {
      checkName(name);
      const { approvers, message, timeout } = options ?? {};
      return openWait('approval', name, {
        ...(approvers !== undefined && { approvers: Array.isArray(approvers) ? approvers : [approvers] }),
        ...(message !== undefined && { message }),
        ...(timeout !== undefined && { timeout: durationSeconds('timeout', timeout) }),
      });
    },
    /** Resolves with the first of the run user's events of `eventType` that meets `conditions`. */
    async waitForEvent(name, options = {}) {
      checkName(name);
      const { eventType, conditions, timeout } = options ?? {};
      return openWait('event', name, {
        eventType,
        ...(conditions !== undefined && { conditions }),
        ...(timeout !== undefined && { timeout: durationSeconds('timeout', timeout) }),
      });
    },
  };
  return { api, suspended, openWait };
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

const suspendedRun = Symbol('suspended');

/**
 * One invocation; never throws. `outcome.output` is JSON text so the size check is done once. A durable script's
 * context (`context.durable` carries its journal) gets the step API, and a wait ends the invocation as suspended.
 */
async function invoke(handler, capture, event, context, scriptFile, call) {
  capture.begin();
  const started = performance.now();
  const { durable: durableRun, ...plain } = context;
  const steps = durableRun ? createDurableContext(durableRun.journal ?? { entries: {} }, call) : undefined;
  const handed = steps ? { ...plain, ...steps.api } : plain;
  let value;
  let thrown;
  try {
    const running = Promise.resolve().then(() => handler(event, handed));
    value = await (steps ? Promise.race([running, steps.suspended.then(() => suspendedRun)]) : running);
  } catch (error) {
    thrown = describe('SCRIPT_ERROR', error, scriptFile);
  }
  const duration = performance.now() - started;
  const { lines, overflow } = capture.end();
  const base = { duration, logs: lines };
  if (value === suspendedRun && !overflow) return { ...base, status: 'suspended', output: 'null', error: null };
  if (overflow)
    return { ...base, status: 'error', output: 'null', error: { code: 'LOG_LIMIT_EXCEEDED', message: `the script printed more than ${maxLogBytes} bytes` } };
  if (thrown) return { ...base, status: 'error', output: 'null', error: thrown };
  const serialized = serializeOutput(value);
  if (serialized.error) return { ...base, status: 'error', output: 'null', error: serialized.error };
  return { ...base, ...classify(value), output: serialized.json };
}

module.exports = { createResources, resourceError, settleResourceAnswer, captureOutput, loadHandler, invoke, describe, maxResponseBytes };
