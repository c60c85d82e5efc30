// Serves the web console's static files in local mode at `/` (and every path the API, template sites, the Solana
// endpoint and uploads do not own), plus `/console/dev-account.json`: the dev account's key, so the local sign-in is
// prefilled. That file exists only here: the AWS deployment serves the bundle alone (lib/console.ts).
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join, normalize } from 'node:path';
import { contentTypes } from './pages-server.js';

export interface ConsoleServerOptions {
  /** Builds the bundle into its folder once, on the first request (or earlier, when `npm start` asks). */
  build(): Promise<string>;
  /** The dev account's key, when `npm start` made one. */
  devApiKey(): string | undefined;
}

const isLoopback = (address: string) => address === '::1' || /^(::ffff:)?127\./.test(address);
const ownedElsewhere = /^\/(api|pages|solana|uploads)(\/|$)/;
export const devAccountPath = '/console/dev-account.json';

function answer(response: ServerResponse, status: number, type: string, body: string | Buffer) {
  response.writeHead(status, { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), 'Cache-Control': 'no-cache', 'X-Content-Type-Options': 'nosniff' });
  response.end(body);
}

/** Handles the request when it is for the console (true), or leaves it to the API (false). */
export function createConsoleServer(options: ConsoleServerOptions) {
  let built: Promise<string> | undefined;
  const folder = () => (built ??= options.build());

  async function serve(request: IncomingMessage, response: ServerResponse, path: string) {
    if (path === devAccountPath) {
      // Only to a browser on this machine: HOST=0.0.0.0 must not hand the key to the network.
      const key = isLoopback(request.socket.remoteAddress ?? '') ? options.devApiKey() : undefined;
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
