// Local stand-in for S3 presigned PUT URLs: a small HTTP server, started on first use, that accepts a PUT only with
// a valid signature, before expiry, with the signed content type and at most the signed size. It exists because the
// local API server, like API Gateway and Lambda, refuses bodies over 6 MB.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { type IncomingMessage, type Server, type ServerResponse, createServer } from 'node:http';
import { writeBlob } from './blob-files.js';
import { onLocalShutdown } from './lifecycle.js';
import { settings } from '#platform/settings.js';

export interface LocalUploadServer {
  signedUrl(key: string, contentType: string, bytes: number, expiresInSeconds: number): string;
}

const secret = randomBytes(32);
const sign = (parts: string[]) => createHmac('sha256', secret).update(parts.join('\n')).digest('base64url');

function verify(url: URL, key: string, contentType: string | undefined): { ok: true; bytes: number } | { ok: false; reason: string } {
  const expires = Number(url.searchParams.get('expires'));
  const bytes = Number(url.searchParams.get('bytes'));
  const signature = Buffer.from(url.searchParams.get('signature') ?? '');
  const expected = Buffer.from(sign([key, contentType ?? '', String(bytes), String(expires)]));
  if (signature.length !== expected.length || !timingSafeEqual(signature, expected))
    return { ok: false, reason: 'signature does not match (URL, key or Content-Type changed)' };
  if (Date.now() > expires) return { ok: false, reason: 'upload URL expired' };
  return { ok: true, bytes };
}

function answer(response: ServerResponse, status: number, message: string) {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', Connection: 'close' });
  response.end(message);
}

async function receive(request: IncomingMessage, response: ServerResponse) {
  const url = new URL(request.url ?? '/', 'http://local');
  if (request.method !== 'PUT' || !url.pathname.startsWith('/uploads/')) return answer(response, 405, 'only PUT /uploads/<key>');
  let key: string;
  try {
    key = decodeURIComponent(url.pathname.replace(/^\/uploads\//, ''));
  } catch {
    return answer(response, 400, 'the upload key is not valid percent-encoding');
  }
  const verdict = verify(url, key, request.headers['content-type']);
  if (!verdict.ok) return answer(response, 403, verdict.reason);
  const parts: Buffer[] = [];
  let size = 0;
  for await (const part of request as AsyncIterable<Buffer>) {
    size += part.length;
    if (size > verdict.bytes) return answer(response, 400, `body exceeds the signed size of ${verdict.bytes} bytes`);
    parts.push(part);
  }
  await writeBlob(key, Buffer.concat(parts));
  answer(response, 200, 'stored');
}

let started: Promise<LocalUploadServer> | undefined;

export function localUploadServer(): Promise<LocalUploadServer> {
  started ??= new Promise((resolve, reject) => {
    const host = settings.host && settings.host !== '0.0.0.0' ? settings.host : '127.0.0.1';
    const server: Server = createServer((request, response) => {
      receive(request, response).catch((error: unknown) => answer(response, 500, `upload failed: ${(error as Error).message}`));
    });
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.unref();
      onLocalShutdown(
        () =>
          new Promise<void>((closed) => {
            started = undefined;
            server.closeAllConnections();
            server.close(() => closed());
          }),
      );
      resolve({
        signedUrl(key, contentType, bytes, expiresInSeconds) {
          const expires = Date.now() + expiresInSeconds * 1000;
          const query = new URLSearchParams({
            bytes: String(bytes),
            expires: String(expires),
            signature: sign([key, contentType, String(bytes), String(expires)]),
          });
          return `http://${host}:${port}/uploads/${encodeURIComponent(key)}?${query}`;
        },
      });
    });
  });
  return started;
}
