// A benign script's warm latency on the local pool (bubblewrap workers) alone, then while hostile scripts run next
// to it without pause: a CPU spin (node), a memory hog up to its limit (python) and fork attempts (python). The
// sandbox's worth to a neighbour: the ratio should stay within 2x.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalScriptRuntime } from '../functions/adapters/local/script-pool.js';
import type { RuntimeLabel } from '../functions/scripts/model.js';
import { attackRequest as runRequest } from '../test/support/sandbox-attacks.js';
import { type BenchFigure, percentile } from './support.js';

export const name = 'script-neighbours';
export const description = 'benign warm run p50 on the local pool, quiet vs beside CPU, memory and fork hogs (target within 2x)';

const samples = 200;
const round2 = (value: number) => Math.round(value * 100) / 100;

const hogs: Array<[RuntimeLabel, string]> = [
  ['nodejs18', 'export async function handler() { const end = Date.now() + 5000; while (Date.now() < end); return null; }'],
  ['python3.11', 'def handler(event, context):\n    hold = []\n    while True:\n        hold.append(bytearray(16 * 1024 * 1024))\n'],
  [
    'python3.11',
    'import os\ndef handler(event, context):\n    for _ in range(100000):\n        try:\n            os.fork()\n        except Exception:\n            pass\n',
  ],
];

export async function run(): Promise<BenchFigure[]> {
  const pool = createLocalScriptRuntime({
    python: 'python3',
    stageDir: mkdtempSync(join(tmpdir(), 'bench-stage-')),
    functionPrefix: 'bench-',
    idleMs: 600_000,
    maxWorkers: 32,
  });
  try {
    const benign = await runRequest('nodejs18', 'export async function handler() { return 1; }');
    const p50 = async () => {
      const latencies: number[] = [];
      for (let i = 0; i < samples; i++) {
        const started = performance.now();
        await pool.invoke(benign);
        latencies.push(performance.now() - started);
      }
      return percentile(
        latencies.sort((a, b) => a - b),
        50,
      );
    };
    for (let i = 0; i < 50; i++) await pool.invoke(benign);
    const quiet = await p50();

    let running = true;
    const hostile = await Promise.all(hogs.map(([runtime, code]) => runRequest(runtime, code)));
    // Measured once every hog has run to its end at least once, so their workers are up and busy, not still starting.
    const rounds = hostile.map(() => 0);
    const loops = hostile.map(async (request, index) => {
      while (running) {
        await pool.invoke(request);
        rounds[index]! += 1;
      }
    });
    while (rounds.some((count) => count === 0)) await new Promise((resolve) => setTimeout(resolve, 50));
    const beside = await p50();
    running = false;
    await Promise.all(loops);
    console.log(`  benign p50: quiet ${round2(quiet)} ms, beside hogs ${round2(beside)} ms (${round2(beside / quiet)}x)`);
    return [
      { name: `${name}.benign_p50.quiet_ms`, value: round2(quiet), unit: 'ms', target: 10, better: 'lower' },
      {
        name: `${name}.benign_p50.beside_hogs_ms`,
        value: round2(beside),
        unit: 'ms',
        target: round2(2 * quiet),
        better: 'lower',
        baseline: { name: `${name}.benign_p50.quiet_ms`, value: round2(quiet) },
      },
      { name: `${name}.beside_hogs_over_quiet`, value: round2(beside / quiet), unit: 'x', target: 2, better: 'lower' },
    ];
  } finally {
    await pool.stop();
  }
}
