// `npm start` as a real child process: its output, its exit, and waiting for a condition on it.
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Upstream, resourceInput } from './resources.js';

const root = join(import.meta.dirname, '..', '..');

export interface LocalStart {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** bin/local.ts as `npm start` runs it, with `env` over the test's environment. */
export function startLocal(env: Record<string, string>): LocalStart {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

/** Waits for `check`; on timeout the error ends with the last of `output` (a start's), when given. */
export async function waitFor(check: () => boolean, what: string, timeoutMs = 120_000, output?: () => string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${output ? `; the output ends:\n${output().slice(-2_000)}` : ''}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** The API of a start's dev account (its dev.json): GET without a body, POST with one. */
export function devApi(dataDir: string) {
  const dev = JSON.parse(readFileSync(join(dataDir, 'dev.json'), 'utf8')) as { baseUrl: string; apiKey: string };
  return async (path: string, body?: unknown) => {
    const answer = await fetch(`${dev.baseUrl}${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': dev.apiKey },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: answer.status, body: (await answer.json()) as { data: any } };
  };
}

/** How long a start may take on a loaded two-core machine (DynamoDB Local's JVM and the tables first). */
export const startTimeoutMs = 300_000;

/** The `npm start`s of one test file, stopped together: each on its own data, with its dev account and a resource on `upstream`. */
export function localStarts(upstream: () => Upstream) {
  const started: LocalStart[] = [];

  function start(env: Record<string, string>): LocalStart {
    const local = startLocal(env);
    started.push(local);
    return local;
  }

  /** A real `npm start` on `env`, its dev account's API, and a resource on the upstream that account installed. */
  async function startedWithResource(env: Record<string, string>, dataDir: string, prefix: string) {
    const first = start(env);
    await waitFor(() => first.output().includes('Platform running'), 'the first start', startTimeoutMs, first.output);
    const call = devApi(dataDir);
    const resourceName = `${prefix}-${Date.now().toString(36)}`;
    const resource = await call('/api/sdk/v1/resources', resourceInput({ name: resourceName }, { baseUrl: upstream().baseUrl }));
    await call(`/api/sdk/v1/resources/${resource.body.data.id}/publish`, {});
    await call(`/api/sdk/v1/resources/${resource.body.data.id}/install`, {});
    return { first, call, resourceName };
  }

  async function stopAll(): Promise<void> {
    for (const local of started) if (local.child.exitCode === null) local.child.kill('SIGTERM');
    await Promise.all(started.map((local) => local.exited));
  }

  return { start, startedWithResource, stopAll };
}
