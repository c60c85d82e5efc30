import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { networkInterfaces } from 'node:os';
import { type Resolver, outboundRequest, registerPlatformListener } from '../../functions/platform/outbound.js';

let server: Server;
let port: number;
let hits = 0;

beforeAll(async () => {
  server = createServer((request, response) => {
    hits += 1;
    if (request.url === '/slow') return void setTimeout(() => response.end('late'), 500);
    if (request.url === '/big') return void response.end(Buffer.alloc(2048, 'a'));
    if (request.url === '/stream') {
      response.writeHead(200, { 'content-type': 'text/plain' });
      const timer = setInterval(() => response.write(Buffer.alloc(512, 'b')), 5);
      return void response.on('close', () => clearInterval(timer));
    }
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(JSON.stringify({ host: request.headers.host }));
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((closed) => server.close(() => closed())));
afterEach(() => {
  delete process.env.ALLOW_PRIVATE_UPSTREAMS;
  delete process.env.PLATFORM_MODE;
});

/** A DNS that answers what the test says, as a rebinding attacker's server would. */
const dnsAnswering =
  (...addresses: string[]): Resolver =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));

describe('outbound: destinations', () => {
  it.each(['file:///etc/passwd', 'ftp://example.com/x', 'gopher://example.com/'])('refuses the scheme of %s always', async (url) => {
    // Prepare
    process.env.ALLOW_PRIVATE_UPSTREAMS = 'true';
    // Act
    const refused = outboundRequest({ url });
    // Assess
    await expect(refused).rejects.toMatchObject({ code: 'FORBIDDEN', details: { reason: 'scheme' } });
  });

  it.each([
    'http://127.0.0.1:1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]:1/',
    'http://10.0.0.1/',
    'http://0.0.0.0:1/',
    'http://[::ffff:127.0.0.1]:1/',
  ])('refuses %s when private upstreams are not allowed', async (url) => {
    // Prepare
    process.env.ALLOW_PRIVATE_UPSTREAMS = 'false';
    // Act
    const refused = outboundRequest({ url });
    // Assess
    await expect(refused).rejects.toMatchObject({ code: 'FORBIDDEN', details: { reason: 'private_address' } });
  });

  it('refuses a host name when any address it resolves to is private, and sends nothing', async () => {
    // Prepare
    process.env.ALLOW_PRIVATE_UPSTREAMS = 'false';
    const before = hits;
    // Act
    const refused = outboundRequest({ url: `http://rebind.test:${port}/` }, dnsAnswering('93.184.216.34', '127.0.0.1'));
    // Assess
    await expect(refused).rejects.toMatchObject({ code: 'FORBIDDEN', details: { host: 'rebind.test', address: '127.0.0.1' } });
    expect(hits).toBe(before);
  });

  it('connects to the address it checked, not to a second DNS answer', async () => {
    // Prepare
    process.env.ALLOW_PRIVATE_UPSTREAMS = 'true';
    let lookups = 0;
    const rebinding: Resolver = async () => (lookups++ === 0 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.255.255.1', family: 4 }]);
    // Act
    const response = await outboundRequest({ url: `http://checked.test:${port}/` }, rebinding);
    // Assess
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.toString())).toEqual({ host: `checked.test:${port}` });
    expect(lookups).toBe(1);
  });

  it('allows loopback in local mode by default and refuses it on AWS by default', async () => {
    // Prepare
    process.env.PLATFORM_MODE = 'local';
    const local = await outboundRequest({ url: `http://127.0.0.1:${port}/` });
    process.env.PLATFORM_MODE = 'aws';
    // Act
    const aws = outboundRequest({ url: `http://127.0.0.1:${port}/` });
    // Assess
    expect(local.status).toBe(200);
    await expect(aws).rejects.toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('outbound: deadline and size', () => {
  it('gives up after the timeout with TIMEOUT', async () => {
    // Prepare
    process.env.ALLOW_PRIVATE_UPSTREAMS = 'true';
    // Act
    const late = outboundRequest({ url: `http://127.0.0.1:${port}/slow`, timeoutMs: 100 });
    // Assess
    await expect(late).rejects.toMatchObject({ code: 'TIMEOUT', status: 504 });
  });

  it.each(['/big', '/stream'])('refuses a response larger than the cap (%s) with a clear error', async (path) => {
    // Prepare
    process.env.ALLOW_PRIVATE_UPSTREAMS = 'true';
    // Act
    const tooBig = outboundRequest({ url: `http://127.0.0.1:${port}${path}`, maxResponseBytes: 1024 });
    // Assess
    await expect(tooBig).rejects.toMatchObject({ code: 'UPSTREAM_ERROR', details: { reason: 'response_too_large', limit: 1024 } });
  });

  it('reports an unreachable upstream and an unsendable header as UPSTREAM_ERROR', async () => {
    // Prepare
    process.env.ALLOW_PRIVATE_UPSTREAMS = 'true';
    // Act
    const [unreachable, badHeader] = await Promise.allSettled([
      outboundRequest({ url: 'http://127.0.0.1:1/' }),
      outboundRequest({ url: `http://127.0.0.1:${port}/`, headers: { 'x-bad': 'a\r\nInjected: 1' } }),
    ]);
    // Assess
    expect(unreachable).toMatchObject({ status: 'rejected', reason: { code: 'UPSTREAM_ERROR', details: { reason: 'unreachable', code: 'ECONNREFUSED' } } });
    expect(badHeader).toMatchObject({ status: 'rejected', reason: { code: 'UPSTREAM_ERROR', details: { reason: 'invalid_request' } } });
  });
});

describe("outbound: the platform's own listeners", () => {
  it("refuses a registered listener by loopback address, by name and by the machine's own interface address, even with private upstreams allowed", async () => {
    // Prepare
    process.env.ALLOW_PRIVATE_UPSTREAMS = 'true';
    const platform = createServer((_request, response) => response.end('platform data'));
    await new Promise<void>((listening) => platform.listen(0, '0.0.0.0', listening));
    const platformPort = (platform.address() as AddressInfo).port;
    registerPlatformListener(`http://127.0.0.1:${platformPort}`);
    const ownAddress = Object.values(networkInterfaces())
      .flatMap((entries) => entries ?? [])
      .find((entry) => entry.family === 'IPv4' && !entry.internal)?.address;
    const targets = [
      `http://127.0.0.1:${platformPort}/`,
      `http://localhost:${platformPort}/`,
      `http://[::ffff:127.0.0.1]:${platformPort}/`,
      ...(ownAddress ? [`http://${ownAddress}:${platformPort}/`] : []),
    ];
    let served = 0;
    platform.on('request', () => (served += 1));
    // Act
    const outcomes = await Promise.all(
      targets.map((url) =>
        outboundRequest({ url }).then(
          () => 'reached',
          (error: { details?: { reason?: string } }) => error.details?.reason,
        ),
      ),
    );
    platform.close();
    // Assess
    expect(outcomes).toEqual(targets.map(() => 'platform_listener'));
    expect(served).toBe(0);
  });

  it("refuses the configured DynamoDB endpoint, and still reaches the user's own loopback API", async () => {
    // Prepare
    process.env.ALLOW_PRIVATE_UPSTREAMS = 'true';
    const saved = process.env.DYNAMODB_ENDPOINT;
    process.env.DYNAMODB_ENDPOINT = `http://127.0.0.1:${port + 1}`;
    // Act
    const toDynamo = await outboundRequest({
      url: `http://127.0.0.1:${port + 1}/`,
      method: 'POST',
      headers: { 'x-amz-target': 'DynamoDB_20120810.Scan' },
    }).catch((error: unknown) => error);
    const toOwnApi = await outboundRequest({ url: `http://127.0.0.1:${port}/own` });
    if (saved === undefined) delete process.env.DYNAMODB_ENDPOINT;
    else process.env.DYNAMODB_ENDPOINT = saved;
    // Assess
    expect(toDynamo).toMatchObject({ code: 'FORBIDDEN', details: { reason: 'platform_listener' } });
    expect(toOwnApi.status).toBe(200);
  });
});
