// Every request the platform makes to an address a user chose (resource endpoints, OAuth token URLs, LLM
// endpoints, webhooks) goes through here: http(s) only, no loopback, link-local or private addresses unless
// allowed, a deadline and a response size cap.
import { promises as dns } from 'node:dns';
import http, { type IncomingHttpHeaders } from 'node:http';
import https from 'node:https';
import { BlockList, type LookupFunction, type Socket, connect, isIP } from 'node:net';
import { settings } from './settings.js';
import { networkInterfaces } from 'node:os';
import { AppError, ForbiddenError, TimeoutError, UpstreamError } from './errors.js';

export const defaultOutboundTimeoutMs = 30_000;
/** Lambda answers at most 6 MB; the upstream body travels inside the envelope, so it must stay under that. */
export const defaultMaxResponseBytes = 5 * 1024 * 1024;

export interface OutboundRequest {
  url: string | URL;
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
  maxResponseBytes?: number;
}

export interface OutboundResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Host name to every address it resolves to; injectable so tests can play a rebinding DNS server. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

const systemResolver: Resolver = (hostname) => dns.lookup(hostname, { all: true, verbatim: true });

/**
 * Loopback, link-local (cloud metadata at 169.254.169.254), private, shared, benchmarking, multicast, reserved and
 * unspecified networks. The one list: `npm run generate:ranges` writes it into the script sandbox runtimes
 * (layers/script-runtime), and test/unit/private-ranges.test.ts fails while they differ.
 */
export const privateRanges = {
  ipv4: [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ],
  ipv6: [
    ['::', 128],
    ['::1', 128],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ],
} as const;

const blocked = new BlockList();
for (const [network, prefix] of privateRanges.ipv4) blocked.addSubnet(network, prefix, 'ipv4');
for (const [network, prefix] of privateRanges.ipv6) blocked.addSubnet(network, prefix, 'ipv6');

/** Loopback, link-local (cloud metadata at 169.254.169.254), private, shared, multicast or unspecified; IPv4-mapped IPv6 included. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 0) return true;
  return blocked.check(address, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * `ALLOW_PRIVATE_UPSTREAMS=true|false` decides; unset, local mode allows (people develop against their own APIs,
 * The design) and AWS refuses. Read on every request so a test or an operator can flip it.
 */
export function privateUpstreamsAllowed(): boolean {
  const setting = settings.allowPrivateUpstreams;
  if (setting === 'true') return true;
  if (setting === 'false') return false;
  return settings.mode === 'local';
}

/** Ports of the platform's own listeners on this machine (the API, DynamoDB Local, moto, a local Solana endpoint). */
const platformPorts = new Set<number>();

/** Marks a listener of the platform as never an upstream, whatever ALLOW_PRIVATE_UPSTREAMS says. */
export function registerPlatformListener(endpoint: string | number): void {
  const port = typeof endpoint === 'number' ? endpoint : urlPort(new URL(endpoint));
  if (port) platformPorts.add(port);
}

const urlPort = (url: URL) => Number(url.port || (url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : 0));

/** Registered listeners and the endpoints the platform is configured with (read per request: tests and restarts move them). */
function isPlatformPort(port: number): boolean {
  if (platformPorts.has(port)) return true;
  return settings.platformEndpoints.some((value) => {
    try {
      return urlPort(new URL(value)) === port;
    } catch {
      return false;
    }
  });
}

/** Any address of this machine: loopback, private, unspecified, or one of its interfaces' (a public one too). */
function isThisMachine(address: string): boolean {
  if (isPrivateAddress(address)) return true;
  const own = Object.values(networkInterfaces()).flatMap((entries) => (entries ?? []).map((entry) => entry.address));
  const bare = address.replace(/^::ffff:/i, '');
  return own.includes(address) || own.includes(bare);
}

/** Refuses the platform's own listeners: a resource pointed at DynamoDB Local or the API must not reach them. */
function checkNotPlatform(host: string, address: string, port: number) {
  if (isPlatformPort(port) && isThisMachine(address)) {
    throw new ForbiddenError(`outbound call to ${host}:${port} refused: it is one of the platform's own services`, { reason: 'platform_listener', host, port });
  }
}

const refused = (host: string, address: string) =>
  new ForbiddenError(`outbound call to ${host} refused: ${address} is a loopback, link-local or private address`, { reason: 'private_address', host, address });

/** Resolves once, checks every address, and hands the checked addresses to the socket: a second DNS answer never gets a say. */
function guardedLookup(resolve: Resolver, allowPrivate: boolean, port: number): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname)
      .then((addresses) => {
        const bad = allowPrivate ? undefined : addresses.find((entry) => isPrivateAddress(entry.address));
        if (bad) throw refused(hostname, bad.address);
        for (const entry of addresses) checkNotPlatform(hostname, entry.address, port);
        const usable = options.family === 4 || options.family === 6 ? addresses.filter((entry) => entry.family === options.family) : addresses;
        if (usable.length === 0) throw new UpstreamError(`${hostname} has no usable address`, { reason: 'dns', host: hostname });
        if (options.all) (callback as (error: null, addresses: ResolvedAddress[]) => void)(null, usable);
        else callback(null, usable[0]!.address, usable[0]!.family);
      })
      .catch((error: NodeJS.ErrnoException) => callback(error, '', 0));
  };
}

/**
 * A TCP connection under the same rules as outboundRequest, for an egress proxy's tunnels: an address literal is
 * checked here (no lookup runs for it), a name by the guarded lookup. Refusals throw or arrive as the socket's error.
 */
export function guardedConnect(host: string, port: number, allowPrivate: boolean, resolve: Resolver = systemResolver): Socket {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) {
    if (!allowPrivate && isPrivateAddress(bare)) throw refused(bare, bare);
    checkNotPlatform(bare, bare, port);
  }
  return connect({ host: bare, port, lookup: guardedLookup(resolve, allowPrivate, port) });
}

// Pooled sockets are keyed by host and port only, so connections opened while private addresses were allowed
// must never serve a request made while they are not: one pool per setting.
const agents = new Map<string, http.Agent>();
function agentFor(protocol: string, allowPrivate: boolean): http.Agent {
  const key = `${protocol}${allowPrivate}`;
  let agent = agents.get(key);
  if (!agent) {
    const options = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64, timeout: 60_000 };
    agent = protocol === 'https:' ? new https.Agent(options) : new http.Agent(options);
    agents.set(key, agent);
  }
  return agent;
}

function checkedUrl(raw: string | URL, allowPrivate: boolean): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UpstreamError('the upstream URL is not valid', { reason: 'invalid_url' });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ForbiddenError(`outbound call refused: only http and https are allowed, not ${url.protocol.replace(':', '')}`, {
      reason: 'scheme',
      scheme: url.protocol.replace(':', ''),
    });
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!allowPrivate && isIP(host) && isPrivateAddress(host)) throw refused(host, host);
  if (isIP(host)) checkNotPlatform(host, host, urlPort(url));
  return url;
}

/** One HTTP exchange with a user-chosen upstream. Redirects are returned, not followed. */
export async function outboundRequest(request: OutboundRequest, resolve: Resolver = systemResolver): Promise<OutboundResponse> {
  const allowPrivate = privateUpstreamsAllowed();
  const url = checkedUrl(request.url, allowPrivate);
  const timeoutMs = request.timeoutMs ?? defaultOutboundTimeoutMs;
  const maxBytes = request.maxResponseBytes ?? defaultMaxResponseBytes;
  const client = url.protocol === 'https:' ? https : http;
  const body = request.body === undefined ? undefined : Buffer.from(request.body);

  return new Promise<OutboundResponse>((done, fail) => {
    const failWith = (error: Error) => {
      clearTimeout(timer);
      const code = (error as NodeJS.ErrnoException).code;
      fail(
        error instanceof AppError ? error : new UpstreamError(`the upstream could not be reached: ${code ?? error.message}`, { reason: 'unreachable', code }),
      );
    };
    let req: http.ClientRequest;
    try {
      req = client.request(url, {
        method: request.method ?? 'GET',
        headers: { ...request.headers, ...(body && { 'content-length': String(body.length) }) },
        agent: agentFor(url.protocol, allowPrivate),
        lookup: guardedLookup(resolve, allowPrivate, urlPort(url)),
      });
    } catch (error) {
      // Node refuses header names or values it cannot send (e.g. CR/LF) before any I/O.
      return fail(new UpstreamError(`the upstream request could not be built: ${(error as Error).message}`, { reason: 'invalid_request' }));
    }
    const timer = setTimeout(() => req.destroy(new TimeoutError(`the upstream did not answer within ${timeoutMs} ms`, { timeoutMs })), timeoutMs);
    req.on('error', failWith);
    req.on('response', (res) => {
      if (Number(res.headers['content-length'] ?? 0) > maxBytes) return req.destroy(tooLarge(maxBytes));
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) return req.destroy(tooLarge(maxBytes));
        chunks.push(chunk);
      });
      res.on('end', () => {
        clearTimeout(timer);
        done({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) });
      });
      res.on('error', failWith);
    });
    req.end(body);
  });
}

const tooLarge = (maxBytes: number) =>
  new UpstreamError(`the upstream response is larger than ${maxBytes} bytes`, { reason: 'response_too_large', limit: maxBytes });

/** The body as JSON when it says so (or parses as such), else as text. */
export function responseData(response: OutboundResponse): unknown {
  const text = response.body.toString('utf8');
  if (text === '') return null;
  const type = String(response.headers['content-type'] ?? '');
  if (/json/i.test(type) || /^\s*[[{]/.test(text)) {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}
