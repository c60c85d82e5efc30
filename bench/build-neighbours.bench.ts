// Another tenant's short script run over HTTP, quiet and then beside one tenant's CPU-bound template build (four busy
// loops in its sandbox, as many as it likes): builds run in a CPU group of the least weight, which holds whatever
// sessions the build starts, so the neighbour's run should stay within 2x its quiet time.
import { givenRepo, manifest, templatesPath } from '../test/support/templates.js';
import { type BenchFigure, percentile, startBarePlatform } from './support.js';

export const name = 'build-neighbours';
export const description = "a tenant's short script run p50, quiet vs beside another tenant's CPU-bound build (target within 2x)";

const samples = 60;
const round2 = (value: number) => Math.round(value * 100) / 100;
const spinner = "echo spinning; for i in 1 2 3 4; do timeout 300 sh -c 'while :; do :; done' & done; wait";

export async function run(): Promise<BenchFigure[]> {
  process.env.TEMPLATE_BUILD_WAIT_SECONDS = '1';
  process.env.SCRIPT_MANUAL_RUNS_PER_MINUTE = '100000000';
  const platform = await startBarePlatform();
  const call = async (apiKey: string, method: string, path: string, body?: unknown) => {
    const answer = await fetch(`${platform.baseUrl}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const parsed = (await answer.json()) as { data: any };
    if (!answer.ok) throw new Error(`${path} answered ${answer.status}: ${JSON.stringify(parsed)}`);
    return parsed.data;
  };
  try {
    const neighbour = platform.dev.apiKey;
    const script = await call(neighbour, 'POST', '/api/sdk/v1/scripts/createScript', {
      name: 'short',
      code: 'export async function handler() { return 1; }',
      config: { maxExecutionsPerDay: 1_000_000 },
    });
    await call(neighbour, 'POST', '/api/sdk/v1/scripts/deployScript', { scriptId: script.id });
    const p50 = async () => {
      const latencies: number[] = [];
      for (let i = 0; i < samples; i++) {
        const started = performance.now();
        await call(neighbour, 'POST', '/api/sdk/v1/scripts/executeScript', { scriptId: script.id, data: {} });
        latencies.push(performance.now() - started);
      }
      return percentile(
        latencies.sort((a, b) => a - b),
        50,
      );
    };
    for (let i = 0; i < 20; i++) await call(neighbour, 'POST', '/api/sdk/v1/scripts/executeScript', { scriptId: script.id, data: {} });
    const quiet = await p50();

    const admin = await fetch(`${platform.baseUrl}/api/admin/v1/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-admin-key': platform.adminKey },
      body: JSON.stringify({ username: `builder-${Date.now().toString(36)}` }),
    });
    const builder = ((await admin.json()) as { data: { apiKey: string } }).data.apiKey;
    const repo = givenRepo();
    const gitHash = repo.commit({ 'template.json': JSON.stringify(manifest({}, { buildCommand: spinner })) });
    const template = await call(builder, 'POST', templatesPath, {
      name: 'Spinner',
      description: 'Busy loops',
      category: 'landing',
      tags: ['site'],
      repository: repo.url,
      gitHash,
    });
    const build = await call(builder, 'POST', `${templatesPath}/${template.id}/build`, {});
    for (;;) {
      const read = await call(builder, 'GET', `${templatesPath}/${template.id}/builds/${build.buildId}?wait=1`);
      if (read.logs.includes('spinning')) break;
      if (read.buildStatus !== 'building') throw new Error(`the spinning build ended: ${JSON.stringify(read)}`);
    }
    const beside = await p50();
    console.log(`  neighbour p50: quiet ${round2(quiet)} ms, beside a CPU-bound build ${round2(beside)} ms (${round2(beside / quiet)}x)`);
    return [
      { name: `${name}.neighbour_p50.quiet_ms`, value: round2(quiet), unit: 'ms', target: 50, better: 'lower' },
      {
        name: `${name}.neighbour_p50.beside_build_ms`,
        value: round2(beside),
        unit: 'ms',
        target: round2(2 * quiet),
        better: 'lower',
        baseline: { name: `${name}.neighbour_p50.quiet_ms`, value: round2(quiet) },
      },
      { name: `${name}.beside_build_over_quiet`, value: round2(beside / quiet), unit: 'x', target: 2, better: 'lower' },
    ];
  } finally {
    await platform.stop();
  }
}
