// Serves the web console's static files in local mode at `/` (and every path the API, template sites, the Solana
// endpoint and uploads do not own), plus `/console/dev-account.json`: the dev account's key, so the local sign-in is
// prefilled, answered only to the console's own page. That file exists only here: the AWS deployment serves the bundle
// alone (lib/console.ts).
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { type LocalHosts, localHosts } from './local-hosts.js';
import { contentTypes } from './pages-server.js';

export interface ConsoleServerOptions {
  /** Builds the bundle into its folder once, on the first request (or earlier, when `npm start` asks). */
  build(): Promise<string>;
  /** The dev account's key, when `npm start` made one. */
  devApiKey(): string | undefined;
  /** The names the server answers (default: loopback names on the port the request came in on). */
  hosts?: LocalHosts;
}

const isLoopback = (address: string) => address === '::1' || /^(::ffff:)?127\./.test(address);
const ownedElsewhere = /^\/(api|pages|solana|uploads|mcp|\.well-known)(\/|$)/;
export const devAccountPath = '/console/dev-account.json';

function answer(response: ServerResponse, status: number, type: string, body: string | Buffer) {
  response.writeHead(status, {
    'Content-Type': type,
    'Content-Length': Buffer.byteLength(body),
    'Cache-Control': 'no-cache',
    'X-Content-Type-Options': 'nosniff',
    // No other page may frame the console (clickjacking its buttons); X-Frame-Options for browsers without CSP 2.
    'Content-Security-Policy': "frame-ancestors 'none'",
    'X-Frame-Options': 'DENY',
  });
  response.end(body);
}

/**
 * The console's own page asking, from this machine: a browser marks its fetch `Sec-Fetch-Site: same-origin` and, when it
 * sends `Origin`, names this very host. A page of another site (cross-site, or a rebound name), a template site
 * (`<sub>.localhost` or a sandboxed `/pages/` page, whose origin is opaque) and another machine get nothing.
 */
function isConsolePage(request: IncomingMessage, hosts: LocalHosts): boolean {
  const { origin, host } = request.headers;
  return (
    isLoopback(request.socket.remoteAddress ?? '') &&
    hosts.kindOf(request) === 'platform' &&
    request.headers['sec-fetch-site'] === 'same-origin' &&
    (origin === undefined || origin === `http://${host}`)
  );
}

/** Handles the request when it is for the console (true), or leaves it to the API (false). */
export function createConsoleServer(options: ConsoleServerOptions) {
  const hosts = options.hosts ?? localHosts();
  let built: Promise<string> | undefined;
  const folder = () => (built ??= options.build());

  async function serve(request: IncomingMessage, response: ServerResponse, path: string) {
    if (path === devAccountPath) {
      const key = isConsolePage(request, hosts) ? options.devApiKey() : undefined;
      return answer(response, key ? 200 : 404, 'application/json; charset=utf-8', JSON.stringify(key ? { apiKey: key } : { error: 'no dev account' }));
    }
    const dir = await folder();
    const relative = normalize(path === '/' ? '/index.html' : path);
    const file = await readFile(join(dir, relative)).catch(() => undefined);
    if (!file) return answer(response, 404, 'text/plain; charset=utf-8', 'not found');
    answer(response, 200, contentTypes[extname(relative).toLowerCase()] ?? 'application/octet-stream', file);
  }

  return {
    /** `npm start` builds before the first browser asks. */
    build: folder,
    handle(request: IncomingMessage, response: ServerResponse): boolean {
      const path = (request.url ?? '/').split('?')[0]!;
      if ((request.method !== 'GET' && request.method !== 'HEAD') || ownedElsewhere.test(path)) return false;
      serve(request, response, path).catch((error: unknown) => answer(response, 500, 'text/plain; charset=utf-8', `console unavailable: ${String(error)}`));
      return true;
    },
  };
}
