// POST /api/sdk/v1/resources/{id}/call (api_key credentials decrypted and injected, usage recorded) to a local upstream,
// against calling that upstream directly in the same run: the difference is what the platform adds per call.
import { type ChildProcess, spawn } from 'node:child_process';
import { type BenchFigure, type LoadTestOptions, type LoadTestResult, assertAllOk, loadTest, startBarePlatform, warmUp } from './support.js';

export const name = 'resource-call';
export const description = 'resource call through the platform vs the upstream directly: added latency (1 connection) and calls/s (32 connections)';

const latencySeconds = 8;
const throughputSeconds = 8;
const throughputConnections = 32;
const jitWarmUpSeconds = 20;

const round2 = (value: number) => Math.round(value * 100) / 100;

// Its own process, so the upstream never competes with the platform for one event loop.
const upstreamSource = `
const http = require('node:http');
const body = JSON.stringify({ city: 'Oslo', forecast: [{ day: 1, tempC: 4 }, { day: 2, tempC: 6 }] });
const server = http.createServer((request, response) => {
  if (request.headers['x-api-key'] !== 'bench-key') { response.writeHead(401); return response.end(); }
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  response.end(body);
});
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => process.send(server.address().port));
`;

async function startUpstream(): Promise<{ baseUrl: string; child: ChildProcess }> {
  const child = spawn(process.execPath, ['-e', upstreamSource], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (message) => resolve(Number(message)));
    child.once('exit', (code) => reject(new Error(`the upstream exited with code ${code}`)));
  });
  return { baseUrl: `http://127.0.0.1:${port}`, child };
}

async function request(url: string, init: { method: string; apiKey: string; body?: unknown }) {
  const response = await fetch(url, {
    method: init.method,
    headers: { 'x-api-key': init.apiKey, 'content-type': 'application/json' },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${init.method} ${url} answered ${response.status}: ${text}`);
  return JSON.parse(text) as { data: Record<string, unknown> };
}

async function measure(
  label: string,
  load: Omit<LoadTestOptions, 'durationSeconds' | 'connections'>,
  connections: number,
  seconds: number,
): Promise<LoadTestResult> {
  const rounds = await warmUp({ ...load, connections });
  console.log(`  ${label} warm-up (${connections} conn): ${rounds.map((rate) => Math.round(rate)).join(' -> ')} requests/s`);
  const result = await loadTest({ ...load, connections, durationSeconds: seconds });
  assertAllOk(result, label);
  return result;
}

export async function run(): Promise<BenchFigure[]> {
  const [platform, upstream] = await Promise.all([startBarePlatform(), startUpstream()]);
  try {
    const { apiKey } = platform.dev;
    const api = `${platform.baseUrl}/api/sdk/v1/resources`;
    // No rateLimits on the resource: the bench measures the call path, not the limiter.
    const created = await request(api, {
      method: 'POST',
      apiKey,
      body: {
        name: 'bench-weather',
        description: 'Forecasts for the bench',
        resourceType: 'api',
        openApiSpec: {
          openapi: '3.0.3',
          info: { title: 'Weather', version: '1' },
          paths: { '/forecast/{city}': { get: { responses: { '200': { description: 'ok' } } } } },
        },
        endpoint: {
          baseUrl: upstream.baseUrl,
          authentication: 'api_key',
          methods: [{ name: 'getForecast', httpMethod: 'GET', path: '/forecast/{city}', parameters: { city: { type: 'string', required: true } } }],
        },
        pricing: { model: 'pay-per-call', basePrice: 0.001 },
      },
    });
    const resourceId = String(created.data.id);
    await request(`${api}/${resourceId}/publish`, { method: 'POST', apiKey });
    await request(`${api}/${resourceId}/install`, { method: 'POST', apiKey });
    await request(`${api}/${resourceId}/authenticate`, { method: 'POST', apiKey, body: { type: 'api_key', credentials: { apiKey: 'bench-key' } } });

    const viaPlatform = {
      url: `${api}/${resourceId}/call`,
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ method: 'getForecast', params: { city: 'Oslo' } }),
    };
    const direct = { url: `${upstream.baseUrl}/forecast/Oslo`, headers: { 'x-api-key': 'bench-key' } };
    const check = await request(viaPlatform.url, { method: 'POST', apiKey, body: { method: 'getForecast', params: { city: 'Oslo' } } });
    if (check.data.status !== 200) throw new Error(`the resource call reached the upstream with status ${String(check.data.status)}`);

    // DynamoDB Local's JVM needs about 20 s of load before its cost per request settles; warmUp() alone can stop
    // earlier on a busy machine, when one round happens not to improve on the last.
    await loadTest({ ...viaPlatform, connections: throughputConnections, durationSeconds: jitWarmUpSeconds });
    const platformLatency = await measure('platform call', viaPlatform, 1, latencySeconds);
    const directLatency = await measure('direct upstream', direct, 1, latencySeconds);
    const platformLoad = await measure('platform call', viaPlatform, throughputConnections, throughputSeconds);
    const directLoad = await measure('direct upstream', direct, throughputConnections, throughputSeconds);

    const baseline = (key: string, value: number) => ({ name: `${name}.direct.${key}`, value });
    return [
      {
        name: `${name}.added_p50_ms`,
        value: round2(platformLatency.p50Ms - directLatency.p50Ms),
        unit: 'ms',
        target: 5,
        better: 'lower',
        baseline: baseline('p50_ms', round2(directLatency.p50Ms)),
      },
      {
        name: `${name}.added_p99_ms`,
        value: round2(platformLatency.p99Ms - directLatency.p99Ms),
        unit: 'ms',
        target: 20,
        better: 'lower',
        baseline: baseline('p99_ms', round2(directLatency.p99Ms)),
      },
      { name: `${name}.p50_ms`, value: round2(platformLatency.p50Ms), unit: 'ms', target: 10, better: 'lower' },
      {
        name: `${name}.calls_per_second`,
        value: Math.round(platformLoad.requestsPerSecond),
        unit: 'calls/s',
        target: 500,
        better: 'higher',
        baseline: baseline('requests_per_second', Math.round(directLoad.requestsPerSecond)),
      },
      { name: `${name}.direct.p50_ms`, value: round2(directLatency.p50Ms), unit: 'ms', target: 5, better: 'lower' },
      { name: `${name}.direct.p99_ms`, value: round2(directLatency.p99Ms), unit: 'ms', target: 20, better: 'lower' },
      { name: `${name}.direct.requests_per_second`, value: Math.round(directLoad.requestsPerSecond), unit: 'requests/s', target: 500, better: 'higher' },
    ];
  } finally {
    upstream.child.kill();
    await platform.stop();
  }
}
