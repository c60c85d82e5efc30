// GET /api/sdk/v1/executions (the run history across scripts and flows) over 200 runs of 2 scripts and 10 flows,
// against GET /api/sdk/v1/me on the same platform in the same run: the gap is what merging the history costs.
import { type BenchFigure, type LoadTestResult, assertAllOk, loadTest, startBarePlatform, warmUp } from './support.js';

export const name = 'run-history';
export const description = 'GET /api/sdk/v1/executions?limit=20 over 200 script runs and 10 flows, 2 connections, vs GET /api/sdk/v1/me';

const connections = 2;
const durationSeconds = 6;
const round2 = (value: number) => Math.round(value * 100) / 100;

export async function run(): Promise<BenchFigure[]> {
  const platform = await startBarePlatform();
  try {
    const { baseUrl, apiKey } = platform.dev;
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
      if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
      return ((await response.json()) as { data: Record<string, any> }).data;
    };
    const scripts = [];
    for (const label of ['a', 'b']) {
      const script = await post('/api/sdk/v1/scripts/createScript', {
        name: `history-${label}`,
        code: 'async function handler(event) { return { success: true, n: event.data.n } }',
      });
      await post('/api/sdk/v1/scripts/deployScript', { scriptId: script.id });
      scripts.push(script.id as string);
    }
    for (let index = 0; index < 10; index++)
      await post('/api/sdk/v1/flows/createTimeFlow', { title: `flow ${index}`, description: 'bench', schedule: '0 3 * * *', scriptId: scripts[0] });
    for (let index = 0; index < 200; index++) await post('/api/sdk/v1/scripts/executeScript', { scriptId: scripts[index % 2], data: { n: index } });

    const measure = async (label: string, url: string): Promise<LoadTestResult> => {
      await warmUp({ url, headers, connections });
      const result = await loadTest({ url, headers, connections, durationSeconds });
      assertAllOk(result, label);
      return result;
    };
    const me = await measure('me', `${baseUrl}/api/sdk/v1/me`);
    const history = await measure('history', `${baseUrl}/api/sdk/v1/executions?limit=20`);
    return [
      {
        name: 'run-history.requests_per_second',
        value: Math.round(history.requestsPerSecond),
        unit: 'requests/s',
        target: 100,
        better: 'higher',
        baseline: { name: 'GET /me', value: Math.round(me.requestsPerSecond) },
      },
      {
        name: 'run-history.p50_ms',
        value: round2(history.p50Ms),
        unit: 'ms',
        target: 100,
        better: 'lower',
        baseline: { name: 'GET /me', value: round2(me.p50Ms) },
      },
    ];
  } finally {
    await platform.stop();
  }
}
