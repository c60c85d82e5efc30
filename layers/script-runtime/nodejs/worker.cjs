'use strict';
// Local-mode worker: one warm process per concurrent execution of a deployed version (a Lambda container's
// stand-in). Speaks newline-delimited JSON with the platform over fd 3; user output never reaches that channel.
// Usage: node <permission flags> worker.cjs <script.cjs> [<inherited descriptors to close, comma-separated>]
const net = require('node:net');
const dns = require('node:dns');
const { basename } = require('node:path');
const privateRanges = require('./private-ranges.cjs');
const runtime = require('./runtime.cjs');

/** The platform's private-address list (private-ranges.cjs, generated from outbound.ts): its own services live there, scripts reach them only through `resources`. */
function guardNetwork() {
  const blocked = new net.BlockList();
  for (const [prefix, bits] of privateRanges.ipv4) blocked.addSubnet(prefix, bits, 'ipv4');
  for (const [prefix, bits] of privateRanges.ipv6) blocked.addSubnet(prefix, bits, 'ipv6');
  const isBlocked = (address) => {
    const mapped = address.toLowerCase().startsWith('::ffff:') && net.isIPv4(address.slice(7)) ? address.slice(7) : address;
    const family = net.isIPv4(mapped) ? 'ipv4' : 'ipv6';
    return blocked.check(mapped, family);
  };
  const denied = (target) =>
    Object.assign(new Error(`connection to ${target} refused: scripts reach private and loopback addresses only through resources`), { code: 'EACCES' });
  const guardedLookup = (lookup) => (hostname, options, callback) => {
    const done = typeof options === 'function' ? options : callback;
    lookup(hostname, typeof options === 'function' ? {} : options, (error, address, family) => {
      if (error) return done(error);
      const addresses = Array.isArray(address) ? address.map((entry) => entry.address) : [address];
      const refused = addresses.find(isBlocked);
      return refused ? done(denied(`${hostname} (${refused})`)) : done(null, address, family);
    });
  };
  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(...args) {
    // net.connect() passes its already normalized [options, callback] array.
    const normalized = Array.isArray(args[0]) ? args[0] : net._normalizeArgs(args);
    const options = { ...normalized[0] };
    const host = options.host ?? 'localhost';
    // Refused as a failed connection is: an 'error' event on the socket.
    if (options.path || (net.isIP(host) && isBlocked(host))) {
      process.nextTick(() => this.destroy(denied(options.path ?? host)));
      return this;
    }
    options.lookup = guardedLookup(options.lookup ?? dns.lookup);
    return connect.call(this, options, normalized[1]);
  };
}

/** The permission model leaves signals open; a script may only signal itself. */
function guardSignals() {
  for (const name of ['kill', '_kill']) {
    const original = process[name];
    process[name] = (pid, ...rest) => {
      if (pid !== process.pid) throw Object.assign(new Error('scripts may not signal other processes'), { code: 'EPERM' });
      return original.call(process, pid, ...rest);
    };
  }
}

// Descriptors the platform's own launcher left open without close-on-exec (a terminal's, a supervisor's pipe) reach
// this process too; the platform names them (argv[3]) and they are closed before user code loads.
for (const fd of (process.argv[3] ?? '').split(',').filter(Boolean)) {
  try {
    require('node:fs').closeSync(Number(fd));
  } catch {
    // already closed
  }
}

// Taken before user code loads, so a script that replaces them cannot read the invocation's id off a frame.
const { parse, stringify } = JSON;
const channel = new net.Socket({ fd: 3, readable: true, writable: true });
const write = channel.write.bind(channel);
const send = (frame) => write(`${stringify(frame)}\n`);
const pendingCalls = new Map();
let nextCallId = 0;

/** A call to the platform over the channel: a resource call, or a durable run's checkpoint. */
const callPlatform = (name, method, params) =>
  new Promise((resolve, reject) => {
    const callId = ++nextCallId;
    pendingCalls.set(callId, { resolve, reject });
    send({ type: 'resourceCall', callId, name, method, params });
  });
const resources = runtime.createResources(callPlatform);

const scriptPath = process.argv[2];
const scriptFile = basename(scriptPath);
guardNetwork();
guardSignals();
// Lines go out as they are printed, so a run's logs can be followed while it runs.
const capture = runtime.captureOutput((line) => send({ type: 'log', ...line }));
let handler;
try {
  handler = runtime.loadHandler(scriptPath, resources);
  send({ type: 'ready' });
} catch (error) {
  send({ type: 'loadError', error: runtime.describe('SCRIPT_LOAD_ERROR', error, scriptFile) });
}

async function onFrame(frame) {
  if (frame.type === 'invoke') {
    const outcome = await runtime.invoke(handler, capture, frame.event, frame.context, scriptFile, callPlatform);
    // Duration and memory are the platform's measurements; the id ties the result to the invocation it answers.
    send({ type: 'result', id: frame.id, ...outcome });
  } else if (frame.type === 'resourceResult') {
    const pending = pendingCalls.get(frame.callId);
    pendingCalls.delete(frame.callId);
    if (!pending) return;
    if (frame.ok) pending.resolve(frame.data);
    else pending.reject(runtime.resourceError(frame.code, frame.message));
  }
}

let partial = [];
channel.on('data', (chunk) => {
  let start = 0;
  let newline;
  while ((newline = chunk.indexOf(10, start)) >= 0) {
    partial.push(chunk.subarray(start, newline));
    const line = Buffer.concat(partial).toString('utf8');
    partial = [];
    start = newline + 1;
    if (line) void onFrame(parse(line));
  }
  if (start < chunk.length) partial.push(chunk.subarray(start));
});
channel.on('close', () => process.exit(0));
