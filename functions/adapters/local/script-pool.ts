// Local adapter of the ScriptRuntime port: deployed versions are staged on disk, and runs go to warm worker
// processes kept per version and memory size, reused like warm Lambda containers and recycled when idle.
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { TooManyRequestsError } from '#platform/errors.js';
import { limits } from '#functions/scripts/model.js';
import { pythonExecutable } from '#functions/scripts/python.js';
import { type DeployRequest, type InvokeOutcome, type InvokeRequest, type ScriptRuntime, configKey } from '#functions/scripts/runtime-port.js';
import { ScriptWorker } from './script-worker.js';

export interface PoolOptions {
  stageDir: string;
  functionPrefix: string;
  /** A worker unused this long is stopped, as Lambda recycles idle containers. */
  idleMs: number;
  /** Workers kept across all scripts; past it the least recently used idle one goes. */
  maxWorkers: number;
}

export interface LocalScriptRuntime extends ScriptRuntime {
  stop(): Promise<void>;
  /** Warm workers right now, for tests and benches that reason about reuse. */
  workerCount(scriptId?: string): number;
}

const versionDir = (options: PoolOptions, scriptId: string, version: number, codeHash: string) => join(options.stageDir, scriptId, `${version}-${codeHash.slice(0, 16)}`);

export function createLocalScriptRuntime(options: PoolOptions): LocalScriptRuntime {
  /** Idle workers by `<scriptId>:<version>:<codeHash>:<memory>`. */
  const idle = new Map<string, ScriptWorker[]>();
  const busy = new Map<string, Set<ScriptWorker>>();
  const running = new Map<string, number>();

  const all = () => [...idle.values(), ...[...busy.values()].map((set) => [...set])].flat();

  function reap(now = Date.now()) {
    for (const [key, workers] of idle) {
      const keep = workers.filter((worker) => worker.alive && now - worker.lastUsed < options.idleMs);
      for (const worker of workers) if (!keep.includes(worker)) worker.kill();
      if (keep.length) idle.set(key, keep);
      else idle.delete(key);
    }
  }
  const reaper = setInterval(reap, Math.min(options.idleMs, 30_000));
  reaper.unref();

  function makeRoom() {
    const idleWorkers = [...idle.values()].flat().sort((a, b) => a.lastUsed - b.lastUsed);
    let excess = all().length - options.maxWorkers + 1;
    for (const worker of idleWorkers) {
      if (excess-- <= 0) break;
      worker.kill();
    }
    reap();
  }

  async function stage(request: Pick<InvokeRequest, 'scriptId' | 'version' | 'codeHash' | 'code'>) {
    const dir = versionDir(options, request.scriptId, request.version, request.codeHash);
    if (existsSync(dir)) return dir;
    const code = await request.code();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, code.fileName), code.source);
    return dir;
  }

  async function acquire(key: string, request: InvokeRequest): Promise<ScriptWorker | InvokeOutcome> {
    const warm = idle.get(key)?.filter((worker) => worker.alive) ?? [];
    const worker = warm.pop();
    idle.set(key, warm);
    if (worker) return worker;
    makeRoom();
    const started = await ScriptWorker.start({
      runtime: request.runtime,
      scriptDir: await stage(request),
      memoryMb: request.memoryMb,
      python: request.runtime === 'python3.11' ? await pythonExecutable() : undefined,
    });
    if (started instanceof ScriptWorker) return started;
    return { status: 'error', outputJson: 'null', error: started, logs: [], duration: 0, memoryUsed: 0 };
  }

  return {
    async deploy(request: DeployRequest) {
      const functionName = `${options.functionPrefix}${request.scriptId}`;
      await stage(request);
      return {
        functionName,
        functionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
        artifact: { functionVersion: String(request.version), configKey: configKey(request.timeoutSeconds, request.memoryMb) },
      };
    },

    async invoke(request: InvokeRequest): Promise<InvokeOutcome> {
      const active = running.get(request.scriptId) ?? 0;
      if (active >= limits.concurrentExecutionsPerScript) {
        throw new TooManyRequestsError('CONCURRENCY_LIMIT', `script ${request.scriptId} already runs ${active} executions; the limit is ${limits.concurrentExecutionsPerScript}`, 1, { scriptId: request.scriptId });
      }
      running.set(request.scriptId, active + 1);
      const key = `${request.scriptId}:${request.version}:${request.codeHash}:${request.memoryMb}`;
      try {
        const acquired = await acquire(key, request);
        if (!(acquired instanceof ScriptWorker)) return acquired;
        const inUse = busy.get(key) ?? new Set();
        busy.set(key, inUse.add(acquired));
        try {
          return await acquired.invoke(request);
        } finally {
          inUse.delete(acquired);
          if (acquired.alive) idle.set(key, [...(idle.get(key) ?? []), acquired]);
        }
      } finally {
        running.set(request.scriptId, (running.get(request.scriptId) ?? 1) - 1);
      }
    },

    async remove(scriptId: string) {
      for (const [key, workers] of idle) {
        if (!key.startsWith(`${scriptId}:`)) continue;
        for (const worker of workers) worker.kill();
        idle.delete(key);
      }
      rmSync(join(options.stageDir, scriptId), { recursive: true, force: true });
    },

    async stop() {
      clearInterval(reaper);
      for (const worker of all()) worker.kill();
      idle.clear();
      busy.clear();
    },

    workerCount: (scriptId?: string) => all().filter((worker) => worker.alive && (!scriptId || worker.spec.scriptDir.includes(`/${scriptId}/`))).length,
  };
}
