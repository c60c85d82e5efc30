// The egress guard of sandboxed package steps (a template's `npm ci`, script package installs): an HTTP proxy on a
// unix socket, the only way out of a sandbox without a network of its own (egress-forwarder.mjs inside relays to
// it). Every tunnel and request goes through the resource-call guard: loopback, private and platform addresses are
// refused, except the one registry origin the operator or the account configured.
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { type IncomingMessage, type ServerResponse, createServer, request } from 'node:http';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ForbiddenError } from '#platform/errors.js';
import { guardedConnect } from '#platform/outbound.js';

export interface EgressProxy {
  /** The directory holding `proxy.sock`, to bind into the sandbox. */
  socketDir: string;
  /** Stops accepting, ends every open tunnel and removes the socket. */
  close(): Promise<void>;
}

export const egressSocketName = 'proxy.sock';

/** `host:port` with the scheme's default port spelled out, the form allowed origins are compared in. */
function authority(host: string, port: string | number, protocol = 'https:'): string {
  return `${host.replace(/^\[|\]$/g, '').toLowerCase()}:${port || (protocol === 'http:' ? 80 : 443)}`;
}

/** A CONNECT target (`host:port`, `[v6]:port`) split; undefined when it is not one. */
function connectTarget(target: string | undefined): { host: string; port: number } | undefined {
  const match = /^(\[[^\]]+\]|[^:[\]]+):(\d{1,5})$/.exec(target ?? '');
  const port = Number(match?.[2]);
  return match && port > 0 && port < 65536 ? { host: match[1]!, port } : undefined;
}

export async function startEgressProxy(options: { allowedOrigins: string[]; onRefused: (line: string) => void }): Promise<EgressProxy> {
  const allowed = new Set(
    options.allowedOrigins.map((origin) => {
      const url = new URL(origin);
      return authority(url.hostname, url.port, url.protocol);
    }),
  );
  const open = new Set<Socket>();
  const track = (socket: Socket) => {
    open.add(socket);
    socket.once('close', () => open.delete(socket));
  };

  /**
   * A guarded connection, or undefined when the guard says no (`refuse` answers with the reason). An upstream that
   * cannot be reached drops the client's connection instead, which a package manager reports as unreachable.
   */
  function dial(host: string, port: number, refuse: (message: string) => void, drop: () => void): Socket | undefined {
    const failed = (error: Error) => {
      if (!(error instanceof ForbiddenError)) return drop();
      const message = `egress guard: ${error.message}`;
      options.onRefused(message);
      refuse(message);
    };
    try {
      const upstream = guardedConnect(host, port, allowed.has(authority(host, port)));
      track(upstream);
      upstream.once('error', failed);
      return upstream;
    } catch (error) {
      failed(error as Error);
      return undefined;
    }
  }

  function forward(req: IncomingMessage, res: ServerResponse) {
    let url: URL;
    try {
      url = new URL(req.url ?? '');
    } catch {
      res.writeHead(400).end('the egress proxy forwards absolute http:// URLs only\n');
      return;
    }
    if (url.protocol !== 'http:') {
      res.writeHead(400).end('the egress proxy forwards absolute http:// URLs only\n');
      return;
    }
    const port = Number(url.port || 80);
    const refuse = (message: string) => void res.writeHead(403, { 'content-type': 'text/plain' }).end(`${message}\n`);
    const upstream = dial(url.hostname, port, refuse, () => req.socket.destroy());
    if (!upstream) return;
    const outgoing = request({ method: req.method, path: `${url.pathname}${url.search}`, headers: req.headers, createConnection: () => upstream }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    outgoing.once('error', () => req.socket.destroy());
    req.pipe(outgoing);
  }

  const server = createServer(forward);
  server.on('connection', track);
  server.on('connect', (req: IncomingMessage, client: Socket, head: Buffer) => {
    const target = connectTarget(req.url);
    client.once('error', () => client.destroy());
    if (!target) {
      client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
      return;
    }
    const refuse = (message: string) => client.end(`HTTP/1.1 403 Forbidden\r\ncontent-type: text/plain\r\n\r\n${message}\n`);
    const upstream = dial(target.host, target.port, refuse, () => client.destroy());
    if (!upstream) return;
    upstream.once('connect', () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client).pipe(upstream);
    });
    upstream.once('close', () => client.destroy());
    client.once('close', () => upstream.destroy());
  });

  const socketDir = await mkdtemp(join(tmpdir(), 'egress-'));
  const socketPath = join(socketDir, egressSocketName);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, resolve);
  });
  // The sandbox runs as another uid: it reaches the directory and connects to the socket, nothing more.
  await chmod(socketDir, 0o711);
  await chmod(socketPath, 0o666);
  return {
    socketDir,
    async close() {
      const closed = new Promise((resolve) => server.close(resolve));
      for (const socket of open) socket.destroy();
      await closed;
      await rm(socketDir, { recursive: true, force: true });
    },
  };
}
