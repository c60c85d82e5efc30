// Local adapter of the ScriptRuntime port: deployed versions are staged on disk, and runs go to warm worker
// processes kept per version and memory size, reused like warm Lambda containers and recycled when idle.
import { chmodSync, existsSync, mkdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { randomUUID } from 'node:crypto';
import { unzipSync } from 'fflate';
import { totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { TooManyRequestsError } from '#platform/errors.js';
import type { ExecutionError } from '#functions/scripts/model.js';
import { pythonExecutable } from '#functions/scripts/authoring/python.js';
import {
  type DependencyTree,
  type DeployRequest,
  type InvokeOutcome,
  type InvokeRequest,
  type ScriptRuntime,
  configKey,
} from '#functions/scripts/runs/runtime-port.js';
import { type PoolCaps, createFairShare, reserveOf } from './fair-share.js';
import { type SandboxChoice, type SandboxMode, SandboxUnavailableError, reachableByOthers, scriptSandbox } from './script-sandbox.js';
import { ScriptWorker } from './script-worker.js';

export interface PoolOptions {
  stageDir: string;
  /** Installed packages, one read-only tree per lock hash shared by every version with that lock; default `<stageDir>/../script-deps`. */
  dependenciesDir?: string;
  functionPrefix: string;
  /** A worker unused this long is stopped, as Lambda recycles idle containers. */
  idleMs: number;
  /** Workers kept across all scripts; past it the least recently used idle one goes. A tenant under its share may use a reserve beyond it (fair-share.ts). */
  maxWorkers: number;
  /** Memory all workers together may be sized for, MB; default half the machine's; a reserve beyond it as for workers. */
  maxTotalMemoryMb?: number;
  /** How long a run waits for a free worker slot before it is refused with CONCURRENCY_LIMIT; default 30 s. */
  slotWaitMs?: number;
  /** The operator's choice of isolation (SCRIPT_SANDBOX); default bubblewrap. */
  sandbox?: SandboxChoice;
  /** The Python interpreter, a command or a path (the scripts area's `python` setting). */
  python: string;
}

export interface LocalScriptRuntime extends ScriptRuntime {
  stop(): Promise<void>;
  /** Warm workers right now, for tests and benches that reason about reuse. */
  workerCount(scriptId?: string): number;
}

/** The interpreter the sandbox uid can reach: a copy installed under a private home (pyenv in /root) cannot be bound. */
export async function workerPython(python: string, sandbox: SandboxMode): Promise<string | undefined> {
  const found = await pythonExecutable(python);
  if (!found || sandbox.kind === 'none' || !sandbox.runAs || reachableByOthers(found)) return found;
  return ['/usr/bin/python3', '/usr/local/bin/python3'].find((candidate) => existsSync(candidate) && reachableByOthers(candidate)) ?? found;
}

/** Unpacks a lock's tree once; versions with the same lock hash mount the same directory. */
async function stageDependencies(dependenciesDir: string, tree: DependencyTree): Promise<string> {
  const dir = join(dependenciesDir, tree.lockHash);
  if (existsSync(dir)) return dir;
  const partial = `${dir}.${randomUUID()}.part`;
  for (const [path, bytes] of Object.entries(unzipSync(await tree.archive()))) {
    if (path.endsWith('/')) continue;
    await mkdir(dirname(join(partial, path)), { recursive: true });
    await writeFile(join(partial, path), bytes, { mode: 0o644 });
  }
  await mkdir(partial, { recursive: true });
  try {
    await rename(partial, dir);
  } catch (error) {
    // Another run unpacked the same lock meanwhile: theirs is as good.
    await rm(partial, { recursive: true, force: true });
    if (!existsSync(dir)) throw error;
  }
  return dir;
}

/**
 * Moved aside in one rename before it is deleted, so a run staging the same lock meanwhile finds the whole tree or
 * none and unpacks its own. A worker mounting it in bubblewrap keeps reading it: the bind mount holds the directory.
 */
async function removeDependencies(dependenciesDir: string, lockHash: string): Promise<void> {
  const dir = join(dependenciesDir, lockHash);
  const doomed = `${dir}.${randomUUID()}.gone`;
  try {
    await rename(dir, doomed);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  await rm(doomed, { recursive: true, force: true });
}

const stoppedBeforeWorker = () => new Error('the local script runtime stopped before the run got a worker');

const versionDir = (options: PoolOptions, scriptId: string, version: number, codeHash: string) =>
  join(options.stageDir, scriptId, `${version}-${codeHash.slice(0, 16)}`);

export function createLocalScriptRuntime(options: PoolOptions): LocalScriptRuntime {
  /** Idle workers by `<scriptId>:<version>:<codeHash>:<memory>`. */
  const idle = new Map<string, ScriptWorker[]>();
  const busy = new Map<string, Set<ScriptWorker>>();
  const maxTotalMemoryMb = options.maxTotalMemoryMb ?? Math.floor(totalmem() / 2 / 1024 / 1024);
  const slotWaitMs = options.slotWaitMs ?? 30_000;
  /** Each run's worker is held by the user it runs for (the tenant), for the shares and the order of waiting runs. */
  const fair = createFairShare({ workers: options.maxWorkers, memoryMb: maxTotalMemoryMb });
  /** Workers being started, counted against both caps from the moment they are decided. */
  const starting = { count: 0, memoryMb: 0 };
  /** Runs waiting for a worker slot, woken whenever a worker goes idle or away. */
  const slotWaiters = new Set<() => void>();
  /** Set at shutdown: no worker starts after it, and runs waiting for one give up. */
  let stopped = false;
  mkdirSync(options.stageDir, { recursive: true });
  const dependenciesDir = options.dependenciesDir ?? join(dirname(options.stageDir), 'script-deps');
  const dependenciesOf = async (tree: DependencyTree | undefined) => (tree ? stageDependencies(dependenciesDir, tree) : undefined);
  /**
   * A sandbox running as another uid binds staged code through the stage directory and the data directory above it:
   * both become traversable by others (not listable). Their files keep their own modes (dev.json and the key are 0600).
   */
  const letSandboxTraverse = (sandbox: SandboxMode) => {
    if (sandbox.kind !== 'bwrap' || !sandbox.runAs) return;
    for (const dir of [options.stageDir, dirname(options.stageDir)]) {
      const { mode } = statSync(dir);
      if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o777) | 0o711);
    }
  };

  const all = () => [...idle.values(), ...[...busy.values()].map((set) => [...set])].flat();
  const live = () => all().filter((worker) => worker.alive);
  const wakeSlotWaiters = () => {
    for (const wake of slotWaiters) wake();
  };

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

  /** Kills least recently used idle workers until one of `memoryMb` fits under both caps; false when busy ones fill them. */
  function makeRoom(memoryMb: number, caps: PoolCaps): boolean {
    reap();
    const fits = () => {
      const workers = live();
      const used = workers.reduce((sum, worker) => sum + worker.spec.memoryMb, 0) + starting.memoryMb;
      return workers.length + starting.count < caps.workers && used + memoryMb <= caps.memoryMb;
    };
    for (const worker of [...idle.values()].flat().sort((a, b) => a.lastUsed - b.lastUsed)) {
      if (fits()) break;
      worker.kill();
    }
    reap();
    return fits();
  }

  /**
   * Holds a slot for a new worker of `tenant`, waiting while busy workers fill what the tenant may use and while a
   * tenant holding fewer workers waits; refused with CONCURRENCY_LIMIT past the wait.
   */
  async function reserveSlot(memoryMb: number, tenant: string): Promise<void> {
    if (memoryMb > maxTotalMemoryMb)
      throw new TooManyRequestsError('CONCURRENCY_LIMIT', `a ${memoryMb} MB worker does not fit in the ${maxTotalMemoryMb} MB all local workers may use`, 60);
    const deadline = Date.now() + slotWaitMs;
    const waiter = fair.wait(tenant);
    try {
      while (!(fair.isTurnOf(waiter) && fair.capsFor(tenant, memoryMb).some((caps) => makeRoom(memoryMb, caps)))) {
        if (stopped) throw stoppedBeforeWorker();
        const left = deadline - Date.now();
        if (left <= 0) {
          const reserve = reserveOf({ workers: options.maxWorkers, memoryMb: maxTotalMemoryMb });
          throw new TooManyRequestsError(
            'CONCURRENCY_LIMIT',
            `the local runtime already runs ${options.maxWorkers} workers or ${maxTotalMemoryMb} MB of them, and your runs hold their share; try again shortly`,
            1,
            {
              maxWorkers: options.maxWorkers,
              maxTotalMemoryMb,
              reserveWorkers: reserve.workers,
              reserveMemoryMb: reserve.memoryMb,
            },
          );
        }
        await new Promise<void>((wake) => {
          const timer = setTimeout(done, Math.min(left, 1000));
          function done() {
            clearTimeout(timer);
            slotWaiters.delete(done);
            wake();
          }
          slotWaiters.add(done);
        });
      }
    } finally {
      fair.stopWaiting(waiter);
      // The order of the runs still waiting changed: the next may be theirs.
      wakeSlotWaiters();
    }
    starting.count += 1;
    starting.memoryMb += memoryMb;
    fair.hold(tenant, memoryMb);
  }

  async function stage(request: Pick<InvokeRequest, 'scriptId' | 'version' | 'codeHash' | 'code'>) {
    const dir = versionDir(options, request.scriptId, request.version, request.codeHash);
    if (existsSync(dir)) return dir;
    const code = await request.code();
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, code.fileName), code.source);
    return dir;
  }

  /** A worker for the run, held by its tenant until `invoke` gives it back; or the outcome of a worker that could not start. */
  async function acquire(key: string, request: InvokeRequest, tenant: string): Promise<ScriptWorker | InvokeOutcome> {
    const warm = idle.get(key)?.filter((worker) => worker.alive) ?? [];
    const worker = warm.pop();
    idle.set(key, warm);
    if (worker) {
      fair.hold(tenant, request.memoryMb);
      return worker;
    }
    let sandbox: SandboxMode;
    try {
      sandbox = scriptSandbox(options.sandbox);
    } catch (error) {
      if (!(error instanceof SandboxUnavailableError)) throw error;
      return { status: 'error', outputJson: 'null', error: { code: error.code, message: error.message }, logs: [], duration: 0, memoryUsed: 0 };
    }
    letSandboxTraverse(sandbox);
    if (stopped) throw stoppedBeforeWorker();
    await reserveSlot(request.memoryMb, tenant);
    let started: ScriptWorker | ExecutionError;
    try {
      started = await ScriptWorker.start({
        runtime: request.runtime,
        scriptDir: await stage(request),
        dependenciesDir: await dependenciesOf(request.dependencies),
        memoryMb: request.memoryMb,
        python: request.runtime === 'python3.11' ? await workerPython(options.python, sandbox) : undefined,
        sandbox,
      });
      // Counted as busy before the reservation ends, so the caps never see a gap.
      if (started instanceof ScriptWorker) busy.set(key, (busy.get(key) ?? new Set()).add(started));
    } catch (error) {
      fair.release(tenant, request.memoryMb);
      throw error;
    } finally {
      starting.count -= 1;
      starting.memoryMb -= request.memoryMb;
      wakeSlotWaiters();
    }
    if (started instanceof ScriptWorker) return started;
    fair.release(tenant, request.memoryMb);
    return { status: 'error', outputJson: 'null', error: started, logs: [], duration: 0, memoryUsed: 0 };
  }

  return {
    async deploy(request: DeployRequest) {
      const functionName = `${options.functionPrefix}${request.scriptId}`;
      await stage(request);
      await dependenciesOf(request.dependencies);
      return {
        functionName,
        functionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
        artifact: { functionVersion: String(request.version), configKey: configKey(request.timeoutSeconds, request.memoryMb) },
      };
    },

    // The script's 10 concurrent runs are the runner's (run-slots.ts): the pool only finds each run a worker.
    async invoke(request: InvokeRequest): Promise<InvokeOutcome> {
      const key = `${request.scriptId}:${request.version}:${request.codeHash}:${request.memoryMb}`;
      const tenant = request.context.userId;
      const acquired = await acquire(key, request, tenant);
      if (!(acquired instanceof ScriptWorker)) return acquired;
      const inUse = busy.get(key) ?? new Set();
      busy.set(key, inUse.add(acquired));
      try {
        return await acquired.invoke(request);
      } finally {
        inUse.delete(acquired);
        fair.release(tenant, request.memoryMb);
        if (acquired.alive) idle.set(key, [...(idle.get(key) ?? []), acquired]);
        wakeSlotWaiters();
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

    removeDependencyTree: (lockHash: string) => removeDependencies(dependenciesDir, lockHash),

    async stop() {
      stopped = true;
      wakeSlotWaiters();
      clearInterval(reaper);
      for (const worker of all()) worker.kill();
      idle.clear();
      busy.clear();
    },

    workerCount: (scriptId?: string) => all().filter((worker) => worker.alive && (!scriptId || worker.spec.scriptDir.includes(`/${scriptId}/`))).length,
  };
}
