// Authenticated GET /api/sdk/v1/me against a bare node:http server answering the same bytes in the same run:
// the gap between the two is what the platform itself costs per request.
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type BenchFigure, type LoadTestOptions, type LoadTestResult, assertAllOk, loadTest, startBarePlatform, warmUp } from './support.js';

export const name = 'auth-me';
export const description = 'authenticated GET /api/sdk/v1/me, 32 connections, vs a bare node:http server sending the same JSON';

const connections = 32;
const durationSeconds = 8;
const targetRequestsPerSecond = 1000;
// Little's law on a closed loop: 32 connections at 1,000 requests/s wait 32 ms per request on average.
const targetP50Ms = (connections * 1000) / targetRequestsPerSecond;

const metrics = [
  {
    key: 'requests_per_second',
    unit: 'requests/s',
    target: targetRequestsPerSecond,
    better: 'higher',
    of: (r: LoadTestResult) => Math.round(r.requestsPerSecond),
  },
  { key: 'p50_ms', unit: 'ms', target: targetP50Ms, better: 'lower', of: (r: LoadTestResult) => round2(r.p50Ms) },
  { key: 'p99_ms', unit: 'ms', target: 50, better: 'lower', of: (r: LoadTestResult) => round2(r.p99Ms) },
] as const;

const round2 = (value: number) => Math.round(value * 100) / 100;

async function startBareServer(contentType: string, body: string): Promise<{ url: string; server: Server }> {
  const length = String(Buffer.byteLength(body));
  const server = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': contentType, 'Content-Length': length });
    response.end(body);
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/sdk/v1/me`, server };
}

const closeServer = (server: Server) =>
  new Promise<void>((closed) => {
    server.closeAllConnections();
    server.close(() => closed());
  });

async function measure(label: string, load: Omit<LoadTestOptions, 'durationSeconds'>): Promise<LoadTestResult> {
  const rounds = await warmUp(load);
  console.log(`  ${label} warm-up: ${rounds.map((rate) => Math.round(rate)).join(' -> ')} requests/s`);
  const result = await loadTest({ ...load, durationSeconds });
  assertAllOk(result, label);
  return result;
}

export async function run(): Promise<BenchFigure[]> {
  const platform = await startBarePlatform();
  let bare: Awaited<ReturnType<typeof startBareServer>> | undefined;
  try {
    const url = `${platform.baseUrl}/api/sdk/v1/me`;
    // Both servers get the same request, key header included.
    const headers = { 'x-api-key': platform.dev.apiKey };
    const first = await fetch(url, { headers });
    const firstBody = await first.text();
    if (first.status !== 200) throw new Error(`GET /me answered ${first.status}: ${firstBody}`);
    bare = await startBareServer(first.headers.get('content-type') ?? 'application/json', firstBody);

    const measured = await measure('platform GET /me', { url, headers, connections });
    const baseline = await measure('bare node:http', { url: bare.url, headers, connections });

    const platformFigures = metrics.map(
      ({ key, unit, target, better, of }): BenchFigure => ({
        name: `${name}.${key}`,
        value: of(measured),
        unit,
        target,
        better,
        baseline: { name: `${name}.bare-http.${key}`, value: of(baseline) },
      }),
    );
    const bareFigures = metrics.map(
      ({ key, unit, target, better, of }): BenchFigure => ({ name: `${name}.bare-http.${key}`, value: of(baseline), unit, target, better }),
    );
    return [...platformFigures, ...bareFigures];
  } finally {
    if (bare) await closeServer(bare.server);
    await platform.stop();
  }
}
