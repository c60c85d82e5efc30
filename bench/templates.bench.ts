// Templates: how long from creating the fixture template to its installed page answering (build + install, each a
// real git fetch and build), and how fast a built page is served locally against a bare node:http static server
// reading the same file in the same run.
import { readFile } from 'node:fs/promises';
import { type Server, createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fetchPage, givenSiteRepo, templatesPath } from '../test/support/templates.js';
import { type BenchFigure, type LoadTestResult, assertAllOk, loadTest, percentile, startBarePlatform, warmUp } from './support.js';

export const name = 'templates';
export const description = 'create-to-served time of the fixture template (build + install); static page requests/s vs a bare node:http static server';

const rounds = 3;
const connections = 32;
const durationSeconds = 8;

async function post(baseUrl: string, apiKey: string, path: string, body: unknown) {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify(body),
  });
  const parsed = (await response.json()) as { data: Record<string, any> };
  if (!response.ok) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(parsed)}`);
  return parsed.data;
}

/** A static server as small as node:http allows: read the file, send it. */
async function startBareStatic(root: string): Promise<{ server: Server; url: string }> {
  const server = createServer((request, response) => {
    const path = join(root, (request.url ?? '/').endsWith('/') ? `${request.url}index.html` : request.url!);
    readFile(path).then(
      (body) => {
        response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': body.length });
        response.end(body);
      },
      () => {
        response.writeHead(404);
        response.end();
      },
    );
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` };
}

async function measure(label: string, url: string): Promise<LoadTestResult> {
  const warm = await warmUp({ url, connections });
  console.log(`  ${label} warm-up: ${warm.map((rate) => Math.round(rate)).join(' -> ')} requests/s`);
  const result = await loadTest({ url, connections, durationSeconds });
  assertAllOk(result, label);
  return result;
}

export async function run(): Promise<BenchFigure[]> {
  const platform = await startBarePlatform();
  const { apiKey } = platform.dev;
  let bare: Awaited<ReturnType<typeof startBareStatic>> | undefined;
  try {
    const timings: number[] = [];
    let subdomain = '';
    for (let round = 0; round < rounds; round++) {
      const { repo, gitHash } = givenSiteRepo();
      const started = performance.now();
      const created = await post(platform.baseUrl, apiKey, templatesPath, {
        repository: repo.url,
        gitHash,
        name: 'Bench site',
        description: 'bench',
        category: 'bench',
      });
      const built = await post(platform.baseUrl, apiKey, `${templatesPath}/${created.id}/build`, {});
      if (built.buildStatus !== 'success') throw new Error(`build ended ${built.buildStatus}: ${built.reason}`);
      const installed = await post(platform.baseUrl, apiKey, `${templatesPath}/${created.id}/install`, { customization: { 'hero.title': 'Bench' } });
      const page = await fetchPage(platform.baseUrl, installed.subdomain, 'host');
      if (page.status !== 200) throw new Error(`installed page answered ${page.status}`);
      timings.push(performance.now() - started);
      subdomain = installed.subdomain;
      repo.remove();
    }
    const createToServed = percentile(
      timings.sort((a, b) => a - b),
      50,
    );
    console.log(`  create-to-served: ${timings.map((ms) => Math.round(ms)).join(', ')} ms`);

    bare = await startBareStatic(join(process.env.DATA_DIR!, 'pages', subdomain));
    const served = await measure('platform /pages/<sub>/', `${platform.baseUrl}/pages/${subdomain}/`);
    const baseline = await measure('bare node:http static', bare.url);
    const servedRate = Math.round(served.requestsPerSecond);
    const bareRate = Math.round(baseline.requestsPerSecond);
    return [
      { name: `${name}.create_to_served_ms`, value: Math.round(createToServed), unit: 'ms', target: 15_000, better: 'lower' },
      {
        name: `${name}.page_requests_per_second`,
        value: servedRate,
        unit: 'requests/s',
        target: Math.round(bareRate / 2),
        better: 'higher',
        baseline: { name: `${name}.bare-static.requests_per_second`, value: bareRate },
      },
      { name: `${name}.bare-static.requests_per_second`, value: bareRate, unit: 'requests/s', target: bareRate, better: 'higher' },
    ];
  } finally {
    if (bare) {
      bare.server.closeAllConnections();
      bare.server.close();
    }
    await platform.stop();
  }
}
