// What every bench shares: the figure format of the design, percentiles, HTTP load, and a platform to measure.
import { fork } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { DevAccount, RunningPlatform } from '../bin/local.js';

/** One entry of bench/results.json. Its name starts with the bench's name and a dot. */
export interface BenchFigure {
  name: string;
  value: number;
  unit: string;
  target: number;
  better: 'lower' | 'higher';
  baseline?: { name: string; value: number };
}

/** What a bench module exports; register it in bench/index.ts. */
export interface Bench {
  name: string;
  description: string;
  run(): Promise<BenchFigure[]>;
}

/** Nearest-rank percentile (p in 0..100) of values sorted ascending. */
export function percentile(sortedValues: ArrayLike<number>, p: number): number {
  if (sortedValues.length === 0) throw new Error('percentile of no values');
  const rank = Math.min(sortedValues.length, Math.max(1, Math.ceil((p / 100) * sortedValues.length)));
  return sortedValues[rank - 1]!;
}

export interface LoadTestOptions {
  url: string;
  headers?: Record<string, string>;
  method?: string;
  body?: string;
  connections: number;
  durationSeconds: number;
}

/** What the load generator process sends back. */
export interface LoadSample {
  latenciesMs: Float64Array;
  non2xx: number;
  errors: number;
  durationSeconds: number;
}

export interface LoadTestResult {
  requests: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  /** Connection errors and timeouts. */
  errors: number;
}

const loadGenerator = fileURLToPath(new URL('./load-generator.ts', import.meta.url));

/** Closed-loop HTTP load with autocannon in a child process (forked with this process's tsx loader). */
export async function loadTest(options: LoadTestOptions): Promise<LoadTestResult> {
  const child = fork(loadGenerator, { serialization: 'advanced' });
  const sample = await new Promise<LoadSample>((resolve, reject) => {
    child.once('message', (message) => resolve(message as LoadSample));
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`load generator exited with code ${code} before reporting`)));
    child.send(options);
  });
  const latencies = sample.latenciesMs.sort();
  if (latencies.length === 0) throw new Error(`no response at all from ${options.url}`);
  return {
    requests: latencies.length,
    requestsPerSecond: latencies.length / sample.durationSeconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    non2xx: sample.non2xx,
    errors: sample.errors,
  };
}

/**
 * Loads the target in rounds until a round improves throughput by less than 5 %, so JITs and pools settle before anything
 * is measured: DynamoDB Local's JVM needs about 20 s of load before its CPU cost per request stops falling.
 * Returns the requests/s of each round.
 */
export async function warmUp(options: Omit<LoadTestOptions, 'durationSeconds'>, { roundSeconds = 3, maxSeconds = 45 } = {}): Promise<number[]> {
  const rounds: number[] = [];
  for (let elapsed = 0; elapsed < maxSeconds; elapsed += roundSeconds) {
    const { requestsPerSecond } = await loadTest({ ...options, durationSeconds: roundSeconds });
    const previous = rounds.at(-1);
    rounds.push(requestsPerSecond);
    if (previous !== undefined && requestsPerSecond < previous * 1.05) break;
  }
  return rounds;
}

/** A run that measured error responses measured the wrong thing. */
export function assertAllOk(result: LoadTestResult, label: string): void {
  if (result.non2xx > 0 || result.errors > 0) {
    throw new Error(`${label}: ${result.non2xx} non-2xx responses and ${result.errors} errors out of ${result.requests} responses`);
  }
}

/** Raised far above any bench's load so benches measure throughput, not the per-key limiter. */
export const benchRateLimitPerMinute = 100_000_000;

export interface BarePlatform extends RunningPlatform {
  dev: DevAccount;
}

/** The local platform with in-memory DynamoDB Local, a throwaway data dir and the dev account; stop() removes both. */
export async function startBarePlatform(): Promise<BarePlatform> {
  // Set before the platform's modules load: their loggers read the level at import.
  process.env.POWERTOOLS_LOG_LEVEL = 'ERROR';
  process.env.RATE_LIMIT_PER_MINUTE = String(benchRateLimitPerMinute);
  process.env.RATE_LIMIT_PER_USER_PER_MINUTE = String(benchRateLimitPerMinute);
  const { startPlatform } = await import('../bin/local.js');
  const dataDir = mkdtempSync(join(tmpdir(), 'platform-bench-'));
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true });
  let platform: RunningPlatform;
  try {
    platform = await startPlatform({ port: 0, dataDir, inMemory: true, devAccount: true });
  } catch (error) {
    removeDataDir();
    throw error;
  }
  const { dev } = platform;
  if (!dev) throw new Error('the platform started without a dev account');
  return {
    ...platform,
    dev,
    async stop() {
      await platform.stop();
      removeDataDir();
    },
  };
}
