'use strict';
// The wrapper around a user's script (DESIGN.md §3), shared by the local worker (worker.cjs) and the
// Lambda entry (lambda.cjs): loads the code, gives it `resources`, captures console output as logs[],
// calls handler(event, context) and applies SPEC.md's handler return convention.
const { AsyncLocalStorage } = require('node:async_hooks');
const { format } = require('node:util');
const { constants: osConstants } = require('node:os');

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

/** A durable script's step API: the protocol's rules (../durable-protocol.json), which the platform's engine checks too. */
const protocol = require('../durable-protocol.json');
const { limits, errorCodes: codes } = protocol;
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
  if (why) return durableError(codes.resultNotJson, `a step result must be JSON: ${why}`);
  const bytes = Buffer.byteLength(JSON.stringify(value ?? null));
  if (bytes > limits.maxStepResultBytes)
    return durableError(codes.resultTooLarge, `a step result is at most ${limits.maxStepResultBytes} bytes of JSON; this one is ${bytes}`);
  return undefined;
}

/** `{seconds|minutes|hours|days}` in seconds; a refusal for anything else, nothing positive, or past a year. */
function durationSeconds(what, duration) {
  const units = protocol.durationUnits;
  if (!duration || typeof duration !== 'object' || Array.isArray(duration))
    throw durableError(codes.invalidArgument, `${what} must be {seconds|minutes|hours|days}`);
  let total = 0;
  for (const [unit, amount] of Object.entries(duration)) {
    if (!Object.hasOwn(units, unit)) throw durableError(codes.invalidArgument, `${what}: unknown unit ${unit} (seconds, minutes, hours or days)`);
    if (typeof amount !== 'number' || !Number.isFinite(amount) || amount < 0)
      throw durableError(codes.invalidArgument, `${what}.${unit} must be a number of at least 0`);
    total += amount * units[unit];
  }
  if (total <= 0) throw durableError(codes.invalidArgument, `${what} must be more than 0 seconds`);
  if (total > limits.maxWaitSeconds) throw durableError(codes.invalidArgument, `${what} may be at most 1 year (${limits.maxWaitSeconds} seconds)`);
  return duration;
}

const checkName = (name) => {
  if (typeof name !== 'string' || name.length === 0 || name.length > limits.maxNameLength || name.startsWith(limits.reservedNamePrefix))
    throw durableError(
      codes.invalidArgument,
      `a step name is a string of 1 to ${limits.maxNameLength} characters, not starting with ${limits.reservedNamePrefix}`,
    );
};

const { maxEntryNameLength, maxBranches, defaultMaxConcurrency } = limits;

/** The error a failed step or branch is recorded with: its own code when it has one. */
const failureOf = (error) => ({
  code: typeof error?.code === 'string' && error.code ? error.code.slice(0, limits.maxErrorCodeLength) : codes.stepFailed,
  message: String(error?.message ?? error).slice(0, limits.maxErrorMessageLength),
});

/** `{maxConcurrency}` of a map or parallel: at most that many branches run at once (default 10). */
function concurrencyOf(what, options) {
  if (options !== undefined && (options === null || typeof options !== 'object' || Array.isArray(options)))
    throw durableError(codes.invalidArgument, `${what}: options must be an object ({maxConcurrency})`);
  const max = options?.maxConcurrency ?? defaultMaxConcurrency;
  if (!Number.isInteger(max) || max < 1 || max > maxBranches)
    throw durableError(codes.invalidArgument, `${what}: maxConcurrency must be a whole number from 1 to ${maxBranches}`);
  return max;
}

/**
 * The step API over the run's journal: stored steps replay, new ones are checkpointed over `call` (the resource-call
 * channel), and a wait not yet ended checkpoints itself and blocks. A block in the handler's own context suspends the
 * invocation (`suspended` resolves; the handler's promise is left behind, as AWS's durable SDK leaves it); a block in a
 * branch of a map or parallel frees the branch's place, and the map blocks its own context once each of its started
 * branches has ended or blocked, so no running step is cut short. The journal handed over is bounded: an entry whose
 * result was `held`, or one left out of a `partial` journal, is asked for when the code reaches it. Each operation's
 * context and place are checkpointed with it; a resumed invocation calling another one there fails the run with
 * DURABLE_NONDETERMINISTIC.
 */
function createDurableContext({ entries, partial }, call) {
  const used = new Set();
  let suspend;
  const suspended = new Promise((resolve) => (suspend = resolve));
  const recorded = new Map();
  for (const [name, entry] of Object.entries(entries))
    if (typeof entry.position === 'number') recorded.set(`${entry.context ?? ''}\u0000${entry.position}`, { name, type: entry.type });
  // The first departure from the journal: the run fails with it, whatever the code does with the error.
  let departure;
  const lookUp = async (full) => {
    const entry = Object.hasOwn(entries, full) ? entries[full] : undefined;
    if (entry?.held || (!entry && partial)) return (await call(protocol.channel, 'entry', { name: full })).entry ?? undefined;
    return entry;
  };
  const reserve = (full) => {
    if (full.length > maxEntryNameLength)
      throw durableError(codes.invalidArgument, `${full}: names with their branch prefixes are at most ${maxEntryNameLength} characters`);
    if (used.has(full)) throw durableError(codes.nameReused, `the name ${full} is used twice in this run: step and wait names are unique per run`);
    used.add(full);
  };

  /** The operations of one context: the handler's (prefix '') or a branch's (`<map name>/<index>/`). */
  function scope(prefix, block) {
    let position = 0;
    const blocked = () => {
      block();
      return new Promise(() => undefined);
    };
    /** The operation's name in the run, its place, and its entry if the journal has one. */
    const claim = async (name, type) => {
      checkName(name);
      const full = prefix + name;
      reserve(full);
      const site = { context: prefix, position: position++ };
      const expected = recorded.get(`${prefix}\u0000${site.position}`);
      if (expected && (expected.name !== full || expected.type !== type)) {
        const actual = { name: full, type };
        departure ??= Object.assign(
          durableError(
            codes.nondeterministic,
            `the run's journal holds ${expected.type} ${expected.name} at this place, but the code called ${type} ${full}: the code changed the order or kind of its operations since the run started`,
          ),
          { details: { expected, actual } },
        );
        throw departure;
      }
      return { full, site, entry: await lookUp(full) };
    };
    const settled = (entry, name) => {
      if (entry.status === 'waiting') return blocked();
      if (entry.error) throw durableError(entry.error.code, entry.error.message);
      if (entry.status === 'cancelled') throw durableError('CANCELLED', `${name} was cancelled`);
      return entry.result === undefined ? null : JSON.parse(entry.result);
    };
    async function openWait(kind, name, args, afterOpen) {
      const { full, site, entry } = await claim(name, kind);
      if (entry) return settled(entry, full);
      const reply = await call(protocol.channel, 'wait', { kind, name: full, args, ...site });
      if (afterOpen) await afterOpen(reply);
      return blocked();
    }

    /** Runs `count` branches, at most `maxConcurrency` at once; their results in input order. */
    async function fanOut(type, name, count, runBranch, maxConcurrency) {
      const { full, site, entry } = await claim(name, type);
      if (entry) return settled(entry, full);
      const results = new Array(count).fill(null);
      const failures = new Map();
      let next = 0;
      let active = 0;
      let parked = 0;
      await new Promise((resolve) => {
        let over = false;
        const settle = () => {
          if (over || active > 0 || (next < count && failures.size === 0)) return;
          over = true;
          // AWS's default (all must succeed): a failure starts no further branch; blocked ones stay behind.
          if (failures.size === 0 && parked > 0) blocked();
          else resolve();
        };
        const launch = () => {
          while (active < maxConcurrency && next < count && failures.size === 0) start(next++);
          settle();
        };
        const start = (index) => {
          active += 1;
          let isParked = false;
          const branch = scope(`${full}/${index}/`, () => {
            if (isParked) return;
            isParked = true;
            active -= 1;
            parked += 1;
            launch();
          });
          const own = `${full}/${index}`;
          (async () => {
            reserve(own);
            const stored = await lookUp(own);
            if (stored && stored.status !== 'waiting') {
              if (stored.error) failures.set(index, stored.error);
              else results[index] = stored.result === undefined ? null : JSON.parse(stored.result);
              return;
            }
            let value;
            try {
              value = await runBranch(branch.api, index);
              const refused = unstorable(value);
              if (refused) throw refused;
            } catch (error) {
              if (departure) return failures.set(index, departure);
              const recorded = await call(protocol.channel, 'step', { name: own, error: failureOf(error) });
              failures.set(index, recorded.error ?? failureOf(error));
              return;
            }
            const kept = await call(protocol.channel, 'step', { name: own, result: value ?? null });
            results[index] = JSON.parse(kept.result);
          })()
            .catch((error) => failures.set(index, departure ?? failureOf(error)))
            .finally(() => {
              if (isParked) parked -= 1;
              else active -= 1;
              isParked = true;
              launch();
            });
        };
        launch();
      });
      if (departure) throw departure;
      if (failures.size > 0) {
        const first = failures.get(Math.min(...failures.keys()));
        const kept = await call(protocol.channel, 'step', { name: full, type, ...site, error: { code: first.code, message: first.message } });
        throw durableError(kept.error?.code ?? first.code, kept.error?.message ?? first.message);
      }
      const refused = unstorable(results);
      if (refused) throw refused;
      const kept = await call(protocol.channel, 'step', { name: full, type, ...site, result: results });
      return JSON.parse(kept.result);
    }

    const api = {
      async step(name, fn) {
        const { full, site, entry } = await claim(name, 'step');
        if (typeof fn !== 'function') throw durableError(codes.invalidArgument, `step ${name} needs a function to run`);
        if (entry) return settled(entry, full);
        const started = performance.now();
        let value;
        try {
          value = await runningStep.run(full, fn);
        } catch (error) {
          await call(protocol.channel, 'step', { name: full, ...site, error: failureOf(error), durationMs: performance.now() - started });
          throw error;
        }
        const refused = unstorable(value);
        if (refused) throw refused;
        const stored = await call(protocol.channel, 'step', { name: full, ...site, result: value ?? null, durationMs: performance.now() - started });
        return JSON.parse(stored.result);
      },
      async wait(name, duration) {
        checkName(name);
        return openWait('wait', name, { duration: durationSeconds('wait duration', duration) });
      },
      async waitForCallback(name, submitter, options = {}) {
        checkName(name);
        if (typeof submitter !== 'function')
          throw durableError(codes.invalidArgument, `waitForCallback ${name} needs a submitter(callbackId, callbackUrl) function`);
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
      /** Runs another script (id or name) as a child run and resolves with its result; its error is thrown with its code. */
      async invoke(name, script, data, options = {}) {
        checkName(name);
        if (typeof script !== 'string' || script.length === 0 || script.length > 200)
          throw durableError(codes.invalidArgument, `invoke ${name} needs the script's id or name (1 to 200 characters)`);
        const { timeout } = options ?? {};
        return openWait('invoke', name, { script, data: data ?? null, ...(timeout !== undefined && { timeout: durationSeconds('timeout', timeout) }) });
      },
      /** `fn(branchContext, item, index)` for each item, at most `maxConcurrency` at once; the results in input order. */
      async map(name, items, fn, options) {
        checkName(name);
        if (!Array.isArray(items)) throw durableError(codes.invalidArgument, `map ${name} needs an array of items`);
        if (items.length > maxBranches) throw durableError(codes.invalidArgument, `map ${name}: at most ${maxBranches} items, not ${items.length}`);
        if (typeof fn !== 'function') throw durableError(codes.invalidArgument, `map ${name} needs a function(branchContext, item, index)`);
        const max = concurrencyOf(`map ${name}`, options);
        return fanOut('map', name, items.length, (branch, index) => fn(branch, items[index], index), max);
      },
      /** Each `fn(branchContext)` at most `maxConcurrency` at once; the results in input order. */
      async parallel(name, fns, options) {
        checkName(name);
        if (!Array.isArray(fns) || fns.some((fn) => typeof fn !== 'function'))
          throw durableError(codes.invalidArgument, `parallel ${name} needs an array of functions(branchContext)`);
        if (fns.length > maxBranches) throw durableError(codes.invalidArgument, `parallel ${name}: at most ${maxBranches} branches, not ${fns.length}`);
        const max = concurrencyOf(`parallel ${name}`, options);
        return fanOut('parallel', name, fns.length, (branch, index) => fns[index](branch), max);
      },
    };
    return { api };
  }

  const root = scope('', suspend);
  return { api: root.api, suspended, departure: () => departure };
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

/**
 * A thrown error's own code (`UPSTREAM_DOWN`, a step's `DURABLE_*`), kept on the run; Node's own codes (system errors,
 * `ERR_*`, a missing module) and anything that is not an upper-case name of at most 64 characters stay SCRIPT_ERROR.
 */
const ownCode = (error) => {
  const code = error?.code;
  if (typeof code !== 'string' || !/^[A-Z][A-Z0-9_]{0,63}$/.test(code)) return undefined;
  // A sandbox's refusal may come as a bare EPERM (no errno): every errno name is the system's, never the script's.
  if ('errno' in error || 'syscall' in error || code in osConstants.errno || code.startsWith('ERR_') || code === 'MODULE_NOT_FOUND') return undefined;
  return code;
};

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
    thrown = describe(ownCode(error) ?? 'SCRIPT_ERROR', error, scriptFile);
  }
  const duration = performance.now() - started;
  const { lines, overflow } = capture.end();
  const base = { duration, logs: lines };
  // A resumed run whose code left its journal's order fails with that, whatever the code did with the error.
  const departed = steps?.departure();
  if (departed && !overflow) return { ...base, status: 'error', output: 'null', error: { code: departed.code, message: departed.message } };
  if (value === suspendedRun && !overflow) return { ...base, status: 'suspended', output: 'null', error: null };
  if (overflow)
    return { ...base, status: 'error', output: 'null', error: { code: 'LOG_LIMIT_EXCEEDED', message: `the script printed more than ${maxLogBytes} bytes` } };
  if (thrown) return { ...base, status: 'error', output: 'null', error: thrown };
  const serialized = serializeOutput(value);
  if (serialized.error) return { ...base, status: 'error', output: 'null', error: serialized.error };
  return { ...base, ...classify(value), output: serialized.json };
}

module.exports = { createResources, resourceError, settleResourceAnswer, captureOutput, loadHandler, invoke, describe, maxResponseBytes };
