// The local script runtime with real node and python3 workers: warm reuse, idle recycling, the concurrency
// limit, and the sandbox that keeps the platform's files, environment, processes and services out of reach.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { type LocalScriptRuntime, createLocalScriptRuntime } from '../../functions/adapters/local/script-pool.js';
import type { RuntimeLabel } from '../../functions/scripts/model.js';
import { prepareCode } from '../../functions/scripts/runs/prepare.js';
import type { InvokeRequest } from '../../functions/scripts/runs/runtime-port.js';

let pool: LocalScriptRuntime;
const secretFile = join(mkdtempSync(join(tmpdir(), 'platform-secret-')), 'dev.json');

beforeAll(() => {
  writeFileSync(secretFile, '{"adminKey":"adm_secret"}');
  process.env.PLATFORM_TEST_SECRET = 'adm_secret';
  pool = createLocalScriptRuntime({
    python: 'python3',
    stageDir: mkdtempSync(join(tmpdir(), 'platform-stage-')),
    functionPrefix: 'platform-script-',
    idleMs: 60_000,
    maxWorkers: 16,
  });
});
afterAll(() => pool.stop());

let counter = 0;
async function request(runtime: RuntimeLabel, code: string, overrides: Partial<InvokeRequest> = {}): Promise<InvokeRequest> {
  const prepared = await prepareCode(runtime, code, 'python3');
  const scriptId = `scr_local${counter++}`;
  return {
    scriptId,
    version: 1,
    runtime,
    codeHash: `${scriptId}hash`,
    qualifier: 'live',
    code: async () => prepared,
    memoryMb: 128,
    timeoutMs: 5000,
    event: { data: {}, trigger: { type: 'manual', source: null, event: null } },
    context: { scriptId, executionId: 'exe_local', userId: 'usr_local', customization: {} },
    callResource: async () => null,
    grant: {
      executionId: 'exe_local',
      userId: 'usr_local',
      scriptId,
      allowedResources: [],
      limitUsd: 1,
      limitedBy: 'cost',
      memoryMb: 128,
      startedAt: Date.now(),
    },
    ...overrides,
  };
}

describe('local script runtime: warm workers', () => {
  it('reuses one warm process for sequential runs, keeping module state like a warm Lambda container', async () => {
    // Prepare
    const run = await request('nodejs18', 'let calls = 0; export async function handler() { calls += 1; return { calls, pid: process.pid }; }');
    // Act
    const outputs = [];
    for (let i = 0; i < 3; i++) outputs.push(JSON.parse((await pool.invoke(run)).outputJson));
    // Assess
    expect(outputs.map((output) => output.calls)).toEqual([1, 2, 3]);
    expect(new Set(outputs.map((output) => output.pid)).size).toBe(1);
    expect(pool.workerCount(run.scriptId)).toBe(1);
  });

  it('awaits async handlers and passes event and context to both runtimes', async () => {
    // Prepare
    const event = { data: { n: 2 }, trigger: { type: 'event', source: 'chatapp', event: 'chatapp.message' } };
    const node = await request(
      'nodejs18',
      'export async function handler(event, context) { await new Promise((r) => setTimeout(r, 5)); return [event.data.n * 2, event.trigger.event, context.userId]; }',
      { event },
    );
    const python = await request(
      'python3.11',
      'import asyncio\nasync def handler(event, context):\n    await asyncio.sleep(0.005)\n    return [event["data"]["n"] * 3, event["trigger"]["source"], context.userId]\n',
      { event },
    );
    // Act
    const outcomes = await Promise.all([pool.invoke(node), pool.invoke(python)]);
    // Assess
    expect(outcomes.map((outcome) => JSON.parse(outcome.outputJson))).toEqual([
      [4, 'chatapp.message', 'usr_local'],
      [6, 'chatapp', 'usr_local'],
    ]);
  });

  it('stops workers that stayed idle longer than the idle time', async () => {
    // Prepare
    const brief = createLocalScriptRuntime({
      python: 'python3',
      stageDir: mkdtempSync(join(tmpdir(), 'platform-stage-')),
      functionPrefix: 'platform-script-',
      idleMs: 200,
      maxWorkers: 4,
    });
    const run = await request('python3.11', 'def handler(event, context):\n    return 1\n');
    await brief.invoke(run);
    // Act
    const warm = brief.workerCount();
    await vi.waitFor(() => expect(brief.workerCount()).toBe(0), { timeout: 5000, interval: 50 });
    // Assess
    expect(warm).toBe(1);
    await brief.stop();
  });
});

describe('local script runtime: concurrency', () => {
  // The script's 10 (and the refusal of an 11th) are the runner's slots: test/integration/scripts-run-slots.test.ts and
  // test/e2e/script-admission.test.ts.
  it('only executes: an 11th run of a script gets a worker too', async () => {
    // Prepare
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let waiting = 0;
    const run = await request('nodejs18', 'export async function handler() { return await resources.gate.wait({}); }', {
      callResource: async () => {
        waiting += 1;
        await gate;
        return 'released';
      },
    });
    const running = Array.from({ length: 10 }, () => pool.invoke(run));
    await vi.waitFor(() => expect(waiting).toBe(10), { timeout: 20_000, interval: 50 });
    // Act
    const eleventh = pool.invoke(run);
    await vi.waitFor(() => expect(waiting).toBe(11), { timeout: 20_000, interval: 50 });
    release();
    // Assess
    const outcomes = await Promise.all([...running, eleventh]);
    expect(outcomes.map((outcome) => outcome.outputJson)).toEqual(Array(11).fill('"released"'));
  });
});

describe('local script runtime: global caps', () => {
  it('starts at most maxWorkers workers for 40 concurrent long runs; the rest wait for a free one and all finish', async () => {
    // Prepare: 8 scripts x 5 runs, each held until released, in a pool capped at 32 workers.
    const capped = createLocalScriptRuntime({
      python: 'python3',
      stageDir: mkdtempSync(join(tmpdir(), 'platform-stage-')),
      functionPrefix: 'platform-script-',
      idleMs: 60_000,
      maxWorkers: 32,
      slotWaitMs: 300_000,
    });
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held = 0;
    let peak = 0;
    const callResource = async () => {
      held += 1;
      peak = Math.max(peak, capped.workerCount());
      await gate;
      return 'done';
    };
    const runs = await Promise.all(
      Array.from({ length: 8 }, () => request('nodejs18', 'export async function handler() { return await resources.gate.wait({}); }', { callResource })),
    );
    // Act
    const outcomes = Promise.all(runs.flatMap((run) => Array.from({ length: 5 }, () => capped.invoke(run))));
    await vi.waitFor(() => expect(held).toBe(32), { timeout: 60_000, interval: 50 });
    const atCap = capped.workerCount();
    release();
    const finished = await outcomes;
    // Assess
    expect(atCap).toBe(32);
    expect(peak).toBeLessThanOrEqual(32);
    expect(finished.map((outcome) => outcome.outputJson)).toEqual(Array(40).fill('"done"'));
    await capped.stop();
  });

  it('refuses a worker larger than the memory all workers may use with CONCURRENCY_LIMIT', async () => {
    // Prepare
    const small = createLocalScriptRuntime({
      python: 'python3',
      stageDir: mkdtempSync(join(tmpdir(), 'platform-stage-')),
      functionPrefix: 'platform-script-',
      idleMs: 60_000,
      maxWorkers: 4,
      maxTotalMemoryMb: 256,
    });
    // Act
    const refused = small.invoke(await request('python3.11', 'def handler(event, context):\n    return 1\n', { memoryMb: 512 }));
    // Assess
    await expect(refused).rejects.toMatchObject({ code: 'CONCURRENCY_LIMIT', status: 429 });
    await small.stop();
  });
});

describe('local script runtime: sandbox', () => {
  const attempts = [
    {
      runtime: 'nodejs18' as const,
      what: 'read a platform file',
      code: `export async function handler() { return require('fs').readFileSync(${JSON.stringify(secretFile)}, 'utf8'); }`,
    },
    {
      runtime: 'python3.11' as const,
      what: 'read a platform file',
      code: `def handler(event, context):\n    return open(${JSON.stringify(secretFile)}).read()\n`,
    },
    {
      runtime: 'nodejs18' as const,
      what: 'start a process',
      code: "export async function handler() { return require('child_process').execSync('id').toString(); }",
    },
    {
      runtime: 'python3.11' as const,
      what: 'start a process',
      code: 'import subprocess\ndef handler(event, context):\n    return subprocess.run(["id"], capture_output=True).stdout.decode()\n',
    },
    {
      runtime: 'nodejs18' as const,
      what: 'signal the platform',
      code: 'export async function handler() { process.kill(process.ppid, "SIGTERM"); return "sent"; }',
    },
    {
      runtime: 'python3.11' as const,
      what: 'signal the platform',
      code: 'import os, signal\ndef handler(event, context):\n    os.kill(os.getppid(), signal.SIGTERM)\n    return "sent"\n',
    },
  ];
  for (const { runtime, what, code } of attempts) {
    it(`refuses a ${runtime} script that tries to ${what}`, async () => {
      // Act
      const outcome = await pool.invoke(await request(runtime, code));
      // Assess
      expect(outcome).toMatchObject({ status: 'error', error: { code: 'SCRIPT_ERROR' }, outputJson: 'null' });
    });
  }

  it('hands scripts no platform environment and refuses connections to loopback services', async () => {
    // Prepare
    const service = createServer((socket) => socket.end('secret data'));
    await new Promise<void>((listening) => service.listen(0, '127.0.0.1', listening));
    const { port } = service.address() as { port: number };
    const nodeRun = await request(
      'nodejs18',
      `export async function handler() {
      const env = Object.keys(process.env);
      const reached = await new Promise((resolve) => require('net').connect(${port}, '127.0.0.1').on('data', () => resolve(true)).on('error', () => resolve(false)));
      const byName = await new Promise((resolve) => require('net').connect(${port}, 'localhost').on('data', () => resolve(true)).on('error', () => resolve(false)));
      return { env, reached, byName };
    }`,
    );
    const pythonRun = await request(
      'python3.11',
      `import os, socket\ndef handler(event, context):\n    try:\n        socket.create_connection(("127.0.0.1", ${port})).recv(10)\n        reached = True\n    except PermissionError:\n        reached = False\n    return {"env": sorted(os.environ), "reached": reached}\n`,
    );
    // Act
    const [fromNode, fromPython] = await Promise.all([pool.invoke(nodeRun), pool.invoke(pythonRun)]);
    service.close();
    // Assess
    // PWD is the sandbox's own working directory (bubblewrap sets it), nothing of the platform's.
    expect(JSON.parse(fromNode.outputJson)).toEqual({
      env: ['PATH', 'HOME', 'TMPDIR', 'LANG', 'TZ', 'LAMBDA_TASK_ROOT', 'PWD'],
      reached: false,
      byName: false,
    });
    expect(JSON.parse(fromPython.outputJson)).toMatchObject({ reached: false });
    expect(JSON.parse(fromPython.outputJson).env).not.toContain('PLATFORM_TEST_SECRET');
  });
});
