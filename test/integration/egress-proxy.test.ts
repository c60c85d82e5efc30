// The egress proxy of sandboxed package steps, spoken to over its unix socket as the sandbox's forwarder does:
// tunnels (CONNECT) and plain requests to loopback, private and platform addresses are refused whatever the name or
// spelling, the one configured registry origin is let through, and a refused target never sees a connection.
import { request } from 'node:http';
import { type AddressInfo, type Server, connect, createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type EgressProxy, egressSocketName, startEgressProxy } from '../../functions/adapters/local/egress-proxy.js';
import { registerPlatformListener } from '../../functions/platform/outbound.js';

/** A TCP listener that answers any request with `ok` and counts the connections it gets. */
async function givenListener(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections++;
    socket.once('data', () => socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok'));
    socket.on('error', () => undefined);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { port: (server.address() as AddressInfo).port, connections: () => connections, close: () => new Promise((closed) => server.close(() => closed())) };
}

let proxy: EgressProxy;
let registry: Awaited<ReturnType<typeof givenListener>>;
let bystander: Awaited<ReturnType<typeof givenListener>>;
let platform: Awaited<ReturnType<typeof givenListener>>;
const refusals: string[] = [];

beforeAll(async () => {
  [registry, bystander, platform] = await Promise.all([givenListener(), givenListener(), givenListener()]);
  registerPlatformListener(platform.port);
  proxy = await startEgressProxy({
    allowedOrigins: [`http://127.0.0.1:${registry.port}/`, `http://127.0.0.1:${platform.port}/`],
    onRefused: (line) => refusals.push(line),
  });
});
afterAll(async () => {
  await proxy.close();
  await Promise.all([registry.close(), bystander.close(), platform.close()]);
});

const socketPath = () => join(proxy.socketDir, egressSocketName);

/** The status line the proxy answers a CONNECT to `target` with. */
function tunnel(target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath());
    socket.once('error', reject);
    socket.once('data', (chunk) => {
      resolve(chunk.toString('utf8').split('\r\n')[0]!);
      socket.destroy();
    });
    socket.write(`CONNECT ${target} HTTP/1.1\r\nhost: ${target}\r\n\r\n`);
  });
}

/** A plain proxied GET of `url`: its status and body. */
function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: socketPath(), path: url, headers: { host: new URL(url).host } }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.once('error', reject);
    req.end();
  });
}

describe('egress proxy: the resource-call guard on every way out', () => {
  it('refuses tunnels and requests to loopback by any spelling, and the target sees no connection', async () => {
    // Prepare
    const port = bystander.port;
    const targets = [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `[::ffff:127.0.0.1]:${port}`, `169.254.169.254:80`, `10.0.0.1:${port}`];
    // Act
    const tunnels = await Promise.all(targets.map(tunnel));
    const plain = await get(`http://127.0.0.1:${port}/package.tgz`);
    // Assess
    expect(tunnels).toEqual(targets.map(() => 'HTTP/1.1 403 Forbidden'));
    expect(plain.status).toBe(403);
    expect(plain.body).toMatch(/egress guard: outbound call to 127\.0\.0\.1 refused/);
    expect(bystander.connections()).toBe(0);
    expect(refusals.length).toBeGreaterThanOrEqual(targets.length + 1);
  });

  it('lets through exactly the configured registry origin, but never a platform listener even when configured', async () => {
    // Act
    const tunnelled = await tunnel(`127.0.0.1:${registry.port}`);
    const fetched = await get(`http://127.0.0.1:${registry.port}/package.tgz`);
    const platformTunnel = await tunnel(`127.0.0.1:${platform.port}`);
    // Assess
    expect(tunnelled).toBe('HTTP/1.1 200 Connection Established');
    expect(fetched).toEqual({ status: 200, body: 'ok' });
    expect(platformTunnel).toBe('HTTP/1.1 403 Forbidden');
    expect(platform.connections()).toBe(0);
  });

  it('answers a malformed target or a non-http request with 400, not a crash', async () => {
    // Act
    const badTarget = await tunnel('no-port-here');
    const notHttp = await get('ftp://example.com/file');
    // Assess
    expect(badTarget).toBe('HTTP/1.1 400 Bad Request');
    expect(notHttp.status).toBe(400);
  });
});
