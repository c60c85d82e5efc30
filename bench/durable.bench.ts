// Durable runs on the local platform: the overhead of a step (10 no-op steps against the same script without
// steps), how late a 2 s wait wakes (its `wakeAt` against the start of the step after it), and 1,000 runs waiting
// at once: the platform process's memory, and the time to resume them all after one burst of callbacks.
import { type BenchFigure, percentile, startBarePlatform } from './support.js';

export const name = 'durable';
export const description = 'durable runs: overhead per step, wake-up lateness of a 2 s wait (p50/p99), 1,000 waiting runs (memory, resume time)';

const overheadRuns = 60;
const wakeRuns = 30;
const waitingRuns = 1000;
const round2 = (value: number) => Math.round(value * 100) / 100;

const code = {
  plain: 'export async function handler() { let total = 0; for (let i = 0; i < 10; i++) total += i; return total; }',
  steps:
    "export async function handler(event, context) { let total = 0; for (let i = 0; i < 10; i++) total += await context.step('s' + i, async () => i); return total; }",
  wake: "export async function handler(event, context) { await context.wait('pause', { seconds: 2 }); return context.step('after', async () => Date.now()); }",
  callback: "export async function handler(event, context) { return context.waitForCallback('reply', async () => undefined, { timeout: { hours: 1 } }); }",
};

export async function run(): Promise<BenchFigure[]> {
  process.env.SCRIPT_MANUAL_RUNS_PER_MINUTE = '100000000';
  const platform = await startBarePlatform();
  const headers = { 'content-type': 'application/json', 'x-api-key': platform.dev.apiKey };
  const call = async (path: string, body: unknown) => {
    const response = await fetch(`${platform.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const json = (await response.json()) as { success: boolean; data: any };
    if (!json.success) throw new Error(`${path} failed: ${JSON.stringify(json)}`);
    return json.data;
  };
  const sdk = (operation: string, body: unknown) => call(`/api/sdk/v1/scripts/${operation}`, body);
  const deployed = async (source: string, durable: boolean) => {
    const created = await sdk('createScript', { name: `bench durable ${Math.random()}`, code: source, config: { durable, maxExecutionsPerDay: 1_000_000 } });
    await sdk('deployScript', { scriptId: created.id });
    return created.id as string;
  };
  const timed = async (scriptId: string) => {
    const started = performance.now();
    const ran = await sdk('executeScript', { scriptId });
    if (ran.status !== 'completed') throw new Error(`run ended ${ran.status}`);
    return performance.now() - started;
  };
  /** Polls until `check` holds, at most `timeoutMs`. */
  const until = async (check: () => Promise<boolean>, timeoutMs: number) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('timed out');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };

  try {
    // Overhead per step: the same work with and without 10 steps, measured alternately after a warm-up.
    const plain = await deployed(code.plain, false);
    const stepped = await deployed(code.steps, true);
    for (let i = 0; i < 10; i++) await Promise.all([timed(plain), timed(stepped)]);
    const plainMs: number[] = [];
    const steppedMs: number[] = [];
    for (let i = 0; i < overheadRuns; i++) {
      plainMs.push(await timed(plain));
      steppedMs.push(await timed(stepped));
    }
    const plainP50 = percentile(
      plainMs.sort((a, b) => a - b),
      50,
    );
    const steppedP50 = percentile(
      steppedMs.sort((a, b) => a - b),
      50,
    );
    const perStep = (steppedP50 - plainP50) / 10;
    console.log(`  10 steps p50 ${round2(steppedP50)} ms, without steps ${round2(plainP50)} ms`);

    // Wake-up lateness: runs started a little apart, each waits 2 s; lateness = the next step's start - wakeAt.
    const waker = await deployed(code.wake, true);
    const wakeIds: string[] = [];
    for (let i = 0; i < wakeRuns; i++) {
      wakeIds.push((await sdk('executeScript', { scriptId: waker })).executionId);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const lateness: number[] = [];
    for (const executionId of wakeIds) {
      let execution: any;
      await until(async () => {
        execution = await sdk('getExecution', { executionId });
        return execution.status === 'completed';
      }, 30_000);
      const pause = execution.steps.find((step: { name: string }) => step.name === 'pause');
      lateness.push(execution.output - Date.parse(pause.wakeAt));
    }
    lateness.sort((a, b) => a - b);

    // 1,000 runs waiting on callbacks: memory of this process (the platform runs in it), then one burst of callbacks.
    const waiter = await deployed(code.callback, true);
    global.gc?.();
    const rssBefore = process.memoryUsage().rss;
    const waiting: string[] = [];
    for (let i = 0; i < waitingRuns; i += 10) {
      const batch = await Promise.all(Array.from({ length: Math.min(10, waitingRuns - i) }, () => sdk('executeScript', { scriptId: waiter })));
      waiting.push(...batch.map((started) => started.executionId as string));
    }
    global.gc?.();
    const rssWaiting = process.memoryUsage().rss;
    // The callback ids reach the code's submitter; the bench reads them from the journal (the platform runs in this process).
    const { createJournal } = await import('../functions/durable/journal.js');
    const { createFileBlobStore } = await import('../functions/adapters/local/file-blob-store.js');
    const journal = createJournal(() => createFileBlobStore('script-packages'));
    const callbackIds = new Map<string, string>();
    for (const executionId of waiting) {
      const { run: runItem, entries } = await journal.read(executionId);
      if (runItem?.state !== 'waiting') throw new Error(`run ${executionId} is ${runItem?.state}, not waiting`);
      callbackIds.set(executionId, String(entries[0]!.fields!.callbackId));
    }
    const burstStarted = performance.now();
    for (let i = 0; i < waiting.length; i += 50)
      await Promise.all(
        waiting
          .slice(i, i + 50)
          .map((executionId) => call(`/api/sdk/v1/executions/${executionId}/callbacks/${callbackIds.get(executionId)}`, { result: { ok: true } })),
      );
    // Checked one at a time, oldest first, up to the first still open: the check must not crowd out the resumes it measures.
    const pending = [...waiting];
    await until(async () => {
      while (pending.length > 0 && (await journal.getRun(pending[0]!))?.state === 'finished') pending.shift();
      return pending.length === 0;
    }, 600_000);
    const resumeAllMs = performance.now() - burstStarted;

    return [
      { name: `${name}.step_overhead_ms`, value: round2(Math.max(0, perStep)), unit: 'ms', target: 20, better: 'lower' },
      { name: `${name}.wake_lateness_p50_ms`, value: Math.round(percentile(lateness, 50)), unit: 'ms', target: 1000, better: 'lower' },
      { name: `${name}.wake_lateness_p99_ms`, value: Math.round(percentile(lateness, 99)), unit: 'ms', target: 1000, better: 'lower' },
      { name: `${name}.1000_waiting.rss_growth_mb`, value: Math.round((rssWaiting - rssBefore) / 1024 / 1024), unit: 'MB', target: 200, better: 'lower' },
      { name: `${name}.1000_waiting.resume_all_ms`, value: Math.round(resumeAllMs), unit: 'ms', target: 60_000, better: 'lower' },
    ];
  } finally {
    await platform.stop();
  }
}
