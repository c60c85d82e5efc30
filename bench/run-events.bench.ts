// The delay of a run's event stream: a durable run prints 20 lines 200 ms apart, each carrying the time it was printed,
// and the stream (the typed client's followRun) notes when each arrives. The delay is the live log's batching (250 ms)
// plus the stream's poll of the run (500 ms) plus the hop, so its median is expected near half of both.
import { followRun } from '../clients/typescript/src/index.js';
import { type BenchFigure, startBarePlatform } from './support.js';

export const name = 'run-events';
export const description = 'delay from a log line printed by a running script to its arrival on the run event stream (20 lines)';

const lines = 20;
const code = `export async function handler(event, context) {
  await context.wait('start', { seconds: 1 });
  for (let line = 0; line < ${lines}; line++) {
    console.log('printed ' + Date.now());
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return 'ok';
}`;

const percentile = (values: number[], share: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * share))]!;

export async function run(): Promise<BenchFigure[]> {
  const platform = await startBarePlatform();
  try {
    const { baseUrl, apiKey } = platform.dev;
    const post = async (path: string, body: unknown) => {
      const response = await fetch(`${baseUrl}${path}`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${path} answered ${response.status}: ${await response.text()}`);
      return ((await response.json()) as { data: Record<string, any> }).data;
    };
    const script = await post('/api/sdk/v1/scripts/createScript', { name: 'stream-delay', code, config: { durable: true } });
    await post('/api/sdk/v1/scripts/deployScript', { scriptId: script.id });
    const { executionId } = await post('/api/sdk/v1/scripts/executeScript', { scriptId: script.id, data: {} });
    const delays: number[] = [];
    for await (const event of followRun({ baseUrl, apiKey }, executionId)) {
      const printed = event.type === 'log' ? /^printed (\d+)$/.exec(event.text) : null;
      if (printed) delays.push(Date.now() - Number(printed[1]));
    }
    if (delays.length !== lines) throw new Error(`the stream delivered ${delays.length} of ${lines} lines`);
    return [
      { name: 'run-events.delay_p50_ms', value: percentile(delays, 0.5), unit: 'ms', target: 1000, better: 'lower' },
      { name: 'run-events.delay_max_ms', value: Math.max(...delays), unit: 'ms', target: 2000, better: 'lower' },
    ];
  } finally {
    await platform.stop();
  }
}
