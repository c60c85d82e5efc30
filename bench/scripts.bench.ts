// Script runs over HTTP (POST /api/sdk/v1/scripts/executeScript), one request at a time as a user or a flow sends them:
// a warm no-op run (node, python), the first run after deploy (a cold worker), and Windmill's light-task benchmark,
// 40 sequential runs of fib(10) (Windmill publishes 2.09 s on a dedicated worker and 4.38 s on a normal one, m4.large).
import { type BenchFigure, percentile, startBarePlatform, warmUp } from './support.js';

export const name = 'scripts';
export const description = 'executeScript over HTTP: warm no-op p50 (node, python), cold first run after deploy, 40 x fib(10)';

const warmRuns = 300;
const coldSamples = 5;
const round2 = (value: number) => Math.round(value * 100) / 100;

const code = {
  nodeNoop: 'export async function handler() { return null; }',
  pythonNoop: 'def handler(event, context):\n    return None\n',
  nodeFib: 'function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }\nexport async function handler() { return fib(10); }',
  pythonFib: 'def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n\ndef handler(event, context):\n    return fib(10)\n',
};

export async function run(): Promise<BenchFigure[]> {
  // Set before the platform loads: the per-script manual limit of 100 a minute would otherwise be what is measured.
  process.env.SCRIPT_MANUAL_RUNS_PER_MINUTE = '100000000';
  const platform = await startBarePlatform();
  const headers = { 'content-type': 'application/json', 'x-api-key': platform.dev.apiKey };
  const post = async (operation: string, body: unknown) => {
    const response = await fetch(`${platform.baseUrl}/api/sdk/v1/scripts/${operation}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await response.json()) as { success: boolean; data: any; error?: unknown };
    if (!json.success || (operation === 'executeScript' && json.data.status !== 'completed')) throw new Error(`${operation} failed: ${JSON.stringify(json)}`);
    return json.data;
  };
  const deployed = async (runtime: string, source: string) => {
    const created = await post('createScript', { name: `bench ${runtime}`, runtime, code: source, config: { maxExecutionsPerDay: 1_000_000 } });
    await post('deployScript', { scriptId: created.id });
    return created.id as string;
  };
  const timed = async (scriptId: string) => {
    const started = performance.now();
    await post('executeScript', { scriptId });
    return performance.now() - started;
  };

  /** Both scripts warmed under load first, then measured alternately so they see the same machine. */
  async function warmP50s(sources: Array<[string, string]>) {
    const scriptIds: string[] = [];
    for (const [runtime, source] of sources) {
      const scriptId = await deployed(runtime, source);
      // Load until throughput settles: DynamoDB Local's JVM needs it before its per-request cost stops falling (support.ts).
      const rounds = await warmUp({
        url: `${platform.baseUrl}/api/sdk/v1/scripts/executeScript`,
        method: 'POST',
        headers,
        body: JSON.stringify({ scriptId }),
        connections: 4,
      });
      console.log(`  ${runtime} warm-up: ${rounds.map((rate) => Math.round(rate)).join(' -> ')} runs/s`);
      scriptIds.push(scriptId);
    }
    const latencies = scriptIds.map(() => [] as number[]);
    for (let i = 0; i < warmRuns; i++) for (const [index, scriptId] of scriptIds.entries()) latencies[index]!.push(await timed(scriptId));
    return latencies.map((values) => {
      const sorted = values.sort((a, b) => a - b);
      return { p50: percentile(sorted, 50), p99: percentile(sorted, 99) };
    });
  }

  async function coldFirstRun(runtime: string, source: string) {
    const samples: number[] = [];
    for (let i = 0; i < coldSamples; i++) samples.push(await timed(await deployed(runtime, source)));
    return percentile(
      samples.sort((a, b) => a - b),
      50,
    );
  }

  async function fortyFib(runtime: string, source: string) {
    const scriptId = await deployed(runtime, source);
    const started = performance.now();
    for (let i = 0; i < 40; i++) await timed(scriptId);
    return performance.now() - started;
  }

  try {
    const [nodeWarm, pythonWarm] = await warmP50s([
      ['nodejs18', code.nodeNoop],
      ['python3.11', code.pythonNoop],
    ]);
    const nodeCold = await coldFirstRun('nodejs18', code.nodeNoop);
    const pythonCold = await coldFirstRun('python3.11', code.pythonNoop);
    const nodeFib = await fortyFib('nodejs18', code.nodeFib);
    const pythonFib = await fortyFib('python3.11', code.pythonFib);
    console.log(`  warm p99: node ${round2(nodeWarm.p99)} ms, python ${round2(pythonWarm.p99)} ms`);
    const windmill = { name: 'windmill.dedicated-worker.40x-fib10_ms', value: 2090 };
    return [
      { name: `${name}.warm_noop_p50.node_ms`, value: round2(nodeWarm.p50), unit: 'ms', target: 10, better: 'lower' },
      { name: `${name}.warm_noop_p50.python_ms`, value: round2(pythonWarm.p50), unit: 'ms', target: 15, better: 'lower' },
      { name: `${name}.cold_first_run.node_ms`, value: round2(nodeCold), unit: 'ms', target: 1000, better: 'lower' },
      { name: `${name}.cold_first_run.python_ms`, value: round2(pythonCold), unit: 'ms', target: 1000, better: 'lower' },
      { name: `${name}.40x_fib10.node_ms`, value: Math.round(nodeFib), unit: 'ms', target: 1000, better: 'lower', baseline: windmill },
      { name: `${name}.40x_fib10.python_ms`, value: Math.round(pythonFib), unit: 'ms', target: 1000, better: 'lower', baseline: windmill },
    ];
  } finally {
    await platform.stop();
  }
}
