// Fan-out and child runs on the local platform, each against a baseline measured in the same run: the overhead of a
// step (10 no-op steps against the same work without), a map of 1,000 trivial branches (against 1,000 plain steps in
// one run), and what `invoke` of a no-op child adds over running that child directly.
import { type BenchFigure, percentile, startBarePlatform } from './support.js';

export const name = 'fanout';
export const description = 'durable fan-out: step overhead, a map of 1,000 trivial branches, invoke of a no-op child over running it directly';

const samples = 20;
const round2 = (value: number) => Math.round(value * 100) / 100;
const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

const code = {
  plain: 'export async function handler() { let total = 0; for (let i = 0; i < 10; i++) total += i; return total; }',
  steps:
    "export async function handler(event, context) { let total = 0; for (let i = 0; i < 10; i++) total += await context.step('s' + i, async () => i); return total; }",
  map: "export async function handler(event, context) { const r = await context.map('fan', Array.from({ length: 1000 }, (_, i) => i), async (branch, item) => item * 2); return r.length; }",
  steps1000:
    "export async function handler(event, context) { let n = 0; for (let i = 0; i < 1000; i++) n += await context.step('s' + i, async () => 1); return n; }",
  noop: 'export async function handler() { return null; }',
  parent: "export async function handler(event, context) { return context.invoke('child', event.data.child, {}); }",
};

export async function run(): Promise<BenchFigure[]> {
  process.env.SCRIPT_MANUAL_RUNS_PER_MINUTE = '100000000';
  const platform = await startBarePlatform();
  const headers = { 'content-type': 'application/json', 'x-api-key': platform.dev.apiKey };
  const sdk = async (operation: string, body: unknown) => {
    const response = await fetch(`${platform.baseUrl}/api/sdk/v1/scripts/${operation}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await response.json()) as { success: boolean; data: any };
    if (!json.success) throw new Error(`${operation} failed: ${JSON.stringify(json)}`);
    return json.data;
  };
  const deployed = async (source: string, durable: boolean, timeout = 60) => {
    const created = await sdk('createScript', {
      name: `bench fanout ${Math.random()}`,
      code: source,
      config: { durable, timeout, maxExecutionsPerDay: 1_000_000 },
    });
    await sdk('deployScript', { scriptId: created.id });
    return created.id as string;
  };
  /** From execute to the run's end, read every 5 ms once the execute answered before it. */
  const timed = async (scriptId: string, data: unknown = {}) => {
    const started = performance.now();
    let run = await sdk('executeScript', { scriptId, data });
    while (run.status === 'running' || run.status === 'waiting') {
      await new Promise((resolve) => setTimeout(resolve, 5));
      run = await sdk('getExecution', { executionId: run.executionId });
    }
    if (run.status !== 'completed') throw new Error(`run ended ${run.status}: ${JSON.stringify(run.error)}`);
    return performance.now() - started;
  };

  try {
    const plain = await deployed(code.plain, false);
    const stepped = await deployed(code.steps, true);
    const noop = await deployed(code.noop, false);
    const parent = await deployed(code.parent, true);
    for (let i = 0; i < 3; i++) await Promise.all([timed(plain), timed(stepped), timed(noop), timed(parent, { child: noop })]);
    const plainMs: number[] = [];
    const steppedMs: number[] = [];
    const directMs: number[] = [];
    const invokedMs: number[] = [];
    for (let i = 0; i < samples; i++) {
      plainMs.push(await timed(plain));
      steppedMs.push(await timed(stepped));
      directMs.push(await timed(noop));
      invokedMs.push(await timed(parent, { child: noop }));
    }
    const perStep = (median(steppedMs) - median(plainMs)) / 10;
    const invokeAdds = median(invokedMs) - median(directMs);
    console.log(`  10 steps p50 ${round2(median(steppedMs))} ms, without ${round2(median(plainMs))} ms`);
    console.log(`  invoke of a no-op child p50 ${round2(median(invokedMs))} ms, the child directly ${round2(median(directMs))} ms`);

    const mapped = await deployed(code.map, true, 300);
    const sequential = await deployed(code.steps1000, true, 300);
    const mapMs = await timed(mapped);
    const stepsMs = await timed(sequential);
    console.log(`  map of 1,000 branches ${Math.round(mapMs)} ms, 1,000 steps in a row ${Math.round(stepsMs)} ms`);

    return [
      {
        name: `${name}.step_overhead_ms`,
        value: round2(Math.max(0, perStep)),
        unit: 'ms',
        target: 5,
        better: 'lower',
        baseline: { name: 'run without steps p50 ms', value: round2(median(plainMs)) },
      },
      {
        name: `${name}.map_1000_ms`,
        value: Math.round(mapMs),
        unit: 'ms',
        target: 10_000,
        better: 'lower',
        baseline: { name: '1,000 steps in a row ms', value: Math.round(stepsMs) },
      },
      {
        name: `${name}.invoke_adds_ms`,
        value: round2(Math.max(0, invokeAdds)),
        unit: 'ms',
        target: 50,
        better: 'lower',
        baseline: { name: 'no-op child run directly p50 ms', value: round2(median(directMs)) },
      },
    ];
  } finally {
    await platform.stop();
  }
}
