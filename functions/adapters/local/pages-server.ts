// Serves template sites from `<pagesDir>/<sub>/` in local mode, at `http://<sub>.localhost:PORT/` and at
// `/pages/<sub>/`, with the same path rules as the CloudFront router (lib/pages-router.ts).
import { readFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { extname, join } from 'node:path';
import { dnsLabel } from '#platform/dns-label.js';

export const contentTypes: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff': 'font/woff',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.map': 'application/json; charset=utf-8',
  '.xml': 'application/xml',
};

const baseHeaders = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-cache' };
/**
 * The path form shares the API's origin (and the console's): a sandboxed page gets an opaque origin, so its scripts
 * cannot read what the console keeps for that origin. The host form is an origin of its own.
 */
const pathFormHeaders = { ...baseHeaders, 'Content-Security-Policy': 'sandbox allow-scripts allow-forms allow-popups allow-modals' };

function plain(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}) {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Length': Buffer.byteLength(text), ...baseHeaders, ...headers });
  response.end(text);
}

/** The site a request is for, if any: `<sub>.localhost[:port]` or `/pages/<sub>/...`. */
function siteOf(request: IncomingMessage): { sub: string; rest: string; pathForm: boolean } | 'redirect' | undefined {
  const host = (request.headers.host ?? '').toLowerCase().replace(/:\d+$/, '');
  const path = (request.url ?? '/').split('?')[0]!;
  if (host.endsWith('.localhost')) return { sub: host.slice(0, -'.localhost'.length), rest: path, pathForm: false };
  if (!path.startsWith('/pages/')) return undefined;
  const tail = path.slice('/pages/'.length);
  const slash = tail.indexOf('/');
  if (slash === -1) return 'redirect';
  return { sub: tail.slice(0, slash), rest: tail.slice(slash), pathForm: true };
}

/** Handles the request when it is for a template site (true), or leaves it to the API (false). */
export function createPagesServer(pagesDir: string) {
  return (request: IncomingMessage, response: ServerResponse): boolean => {
    const site = siteOf(request);
    if (!site) return false;
    if (site === 'redirect') {
      const sub = (request.url ?? '').split('?')[0]!.slice('/pages/'.length);
      if (!dnsLabel.test(sub)) plain(response, 404, 'Not Found');
      else plain(response, 301, 'Moved Permanently', { Location: `/pages/${sub}/` });
      return true;
    }
    void serve(site, request, response);
    return true;
  };

  async function serve(site: { sub: string; rest: string; pathForm: boolean }, request: IncomingMessage, response: ServerResponse) {
    if (request.method !== 'GET' && request.method !== 'HEAD') return plain(response, 405, 'Method Not Allowed', { Allow: 'GET, HEAD' });
    let rest: string;
    try {
      rest = decodeURIComponent(site.rest);
    } catch {
      return plain(response, 400, 'Bad Request');
    }
    const segments = rest.split('/');
    if (!dnsLabel.test(site.sub) || segments.some((segment) => segment === '..' || segment === '.' || segment.includes('\\') || segment.includes('\0')))
      return plain(response, 404, 'Not Found');
    if (rest.endsWith('/')) rest += 'index.html';
    else if (!segments.at(-1)!.includes('.')) rest += '/index.html';
    let body: Buffer;
    try {
      body = await readFile(join(pagesDir, site.sub, rest));
    } catch {
      return plain(response, 404, 'Not Found');
    }
    response.writeHead(200, {
      'Content-Type': contentTypes[extname(rest).toLowerCase()] ?? 'application/octet-stream',
      'Content-Length': body.length,
      ...(site.pathForm ? pathFormHeaders : baseHeaders),
    });
    response.end(request.method === 'HEAD' ? undefined : body);
  }
}
