// Flow control on the local platform: events into a script throttled at 50 runs per second start at 50/s (each run's
// end time stands for its start: the runs are no-ops), none lost or doubled; and what passing the gate adds to a run's
// start when no limit is hit (a throttle it never reaches, against the same script without one).
import { type BenchFigure, percentile, startBarePlatform } from './support.js';

export const name = 'flow-control';
export const description = 'throttle at 50 runs/s under a burst of events (rate, none lost or doubled); what the gate adds when no limit is hit';

const events = Number(process.env.FLOW_CONTROL_BENCH_EVENTS ?? 10_000);
const samples = 50;
const perSecond = 50;
const median = (values: number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

export async function run(): Promise<BenchFigure[]> {
  process.env.SCRIPT_MANUAL_RUNS_PER_MINUTE = '100000000';
  const platform = await startBarePlatform();
  const headers = { 'content-type': 'application/json', 'x-api-key': platform.dev.apiKey };
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${platform.baseUrl}${path}`, { method, headers, ...(body !== undefined && { body: JSON.stringify(body) }) });
    const json = (await response.json()) as { success: boolean; data: any };
    if (!json.success) throw new Error(`${path} failed: ${JSON.stringify(json)}`);
    return json.data;
  };
  const deployed = async (config: Record<string, unknown>) => {
    const created = await call('POST', '/api/sdk/v1/scripts/createScript', {
      name: `bench flow control ${Math.random()}`,
      code: 'export async function handler(event) { return event.data.n; }',
      config: { maxExecutionsPerDay: 1_000_000, ...config },
    });
    await call('POST', '/api/sdk/v1/scripts/deployScript', { scriptId: created.id });
    return created.id as string;
  };
  const startMs = async (scriptId: string) => {
    const started = performance.now();
    await call('POST', '/api/sdk/v1/scripts/executeScript', { scriptId, data: { n: 0 } });
    return performance.now() - started;
  };
  /** Every run of the script, all pages. */
  const runsOf = async (scriptId: string) => {
    const runs: Array<{ status: string; endedAt: string | null }> = [];
    for (let offset = 0; ; offset += 100) {
      const page = await call('GET', `/api/sdk/v1/executions?scriptId=${scriptId}&limit=100&offset=${offset}`);
      runs.push(...page.executions);
      if (page.executions.length < 100) return runs;
    }
  };

  try {
    const plain = await deployed({});
    const gated = await deployed({ throttle: { limit: 100, period: { seconds: 1 } } });
    const plainMs: number[] = [];
    const gatedMs: number[] = [];
    for (let index = 0; index < samples; index++) {
      plainMs.push(await startMs(plain));
      gatedMs.push(await startMs(gated));
    }

    const throttled = await deployed({ throttle: { limit: perSecond, period: { seconds: 1 } } });
    for (let sent = 0; sent < events; sent += 100)
      await Promise.all(
        Array.from({ length: Math.min(100, events - sent) }, (_, index) =>
          call('POST', '/api/sdk/v1/scripts/executeScript', { scriptId: throttled, data: { n: sent + index } }),
        ),
      );
    let runs = await runsOf(throttled);
    while (runs.filter((run) => run.status === 'completed').length < events) {
      if (runs.length > events) break;
      await new Promise((resolve) => setTimeout(resolve, 1000));
      runs = await runsOf(throttled);
    }
    const ends = runs.map((run) => Date.parse(run.endedAt ?? '')).sort((a, b) => a - b);
    const spanSeconds = (ends.at(-1)! - ends[0]!) / 1000;
    const rate = spanSeconds > 0 ? (ends.length - perSecond) / spanSeconds : ends.length;
    return [
      { name: `${name}.throttle_start_rate`, value: Math.round(rate * 10) / 10, unit: 'runs/s', target: perSecond, better: 'lower' },
      { name: `${name}.throttle_runs_lost_or_doubled`, value: Math.abs(runs.length - events), unit: 'runs', target: 0, better: 'lower' },
      {
        name: `${name}.gate_adds_ms`,
        value: Math.round((median(gatedMs) - median(plainMs)) * 100) / 100,
        unit: 'ms',
        target: 5,
        better: 'lower',
        baseline: { name: 'execute without flow control p50 ms', value: Math.round(median(plainMs) * 100) / 100 },
      },
    ];
  } finally {
    await platform.stop();
  }
}
