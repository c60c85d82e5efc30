// Scripts with packages: create-and-deploy of a node script declaring an npm package with a cold download cache
// (a fresh platform) and with a warm one, and the first run of such a script after its deploy (worker start plus
// loading the package from the version's mounted tree). Needs the npm registry.
import { type BenchFigure, percentile, startBarePlatform } from './support.js';

export const name = 'script-dependencies';
export const description = 'create-and-deploy with an npm package, cold vs warm download cache; cold first run importing it';

const warmSamples = 3;
const round = (value: number) => Math.round(value);
const dependencies = { dayjs: '1.11.13' };
const code = "import dayjs from 'dayjs';\nexport async function handler() { return dayjs('2024-01-02').format('YYYY'); }";

export async function run(): Promise<BenchFigure[]> {
  const platform = await startBarePlatform();
  const headers = { 'content-type': 'application/json', 'x-api-key': platform.dev.apiKey };
  const post = async (operation: string, body: unknown) => {
    const response = await fetch(`${platform.baseUrl}/api/sdk/v1/scripts/${operation}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await response.json()) as { success: boolean; data: any };
    if (!json.success || (operation === 'executeScript' && json.data.output !== '2024')) throw new Error(`${operation} failed: ${JSON.stringify(json)}`);
    return json.data;
  };
  const createAndDeploy = async (label: string) => {
    const started = performance.now();
    const created = await post('createScript', { name: `bench deps ${label}`, code, dependencies });
    await post('deployScript', { scriptId: created.id });
    return { scriptId: created.id as string, ms: performance.now() - started };
  };
  const firstRun = async (scriptId: string) => {
    const started = performance.now();
    await post('executeScript', { scriptId });
    return performance.now() - started;
  };
  try {
    const cold = await createAndDeploy('cold');
    const firstRuns = [await firstRun(cold.scriptId)];
    const warm: number[] = [];
    for (let i = 0; i < warmSamples; i++) {
      const deployed = await createAndDeploy(`warm ${i}`);
      warm.push(deployed.ms);
      firstRuns.push(await firstRun(deployed.scriptId));
    }
    const warmP50 = percentile(
      warm.sort((a, b) => a - b),
      50,
    );
    const firstRunP50 = percentile(
      firstRuns.sort((a, b) => a - b),
      50,
    );
    console.log(`  create+deploy: cold cache ${round(cold.ms)} ms, warm cache p50 ${round(warmP50)} ms; first run p50 ${round(firstRunP50)} ms`);
    return [
      { name: `${name}.create_deploy.cold_cache_ms`, value: round(cold.ms), unit: 'ms', target: 20_000, better: 'lower' },
      {
        name: `${name}.create_deploy.warm_cache_p50_ms`,
        value: round(warmP50),
        unit: 'ms',
        target: 5_000,
        better: 'lower',
        baseline: { name: `${name}.create_deploy.cold_cache_ms`, value: round(cold.ms) },
      },
      { name: `${name}.first_run_p50_ms`, value: round(firstRunP50), unit: 'ms', target: 1_000, better: 'lower' },
    ];
  } finally {
    await platform.stop();
  }
}
