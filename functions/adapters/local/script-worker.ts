// One warm, sandboxed child process running a script version: the local stand-in for one Lambda container.
// It speaks newline-delimited JSON over fd 3 (a socketpair the platform creates) with
// layers/script-runtime/{nodejs/worker.cjs,python/platform_worker.py}; under bubblewrap (script-sandbox.ts) by default.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { setPriority, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { Duplex } from 'node:stream';
import { fileURLToPath } from 'node:url';
import type { ExecutionError, RuntimeLabel } from '#functions/scripts/model.js';
import type { InvokeOutcome, InvokeRequest } from '#functions/scripts/runs/runtime-port.js';
import { inCpuShare } from './cpu-shares.js';
import { type WorkerFrame, parseFrame } from './script-frames.js';
import { type SandboxMode, type SandboxedCommand, sandboxPaths, sandboxedCommand } from './script-sandbox.js';

export const wrapperDir = fileURLToPath(new URL('../../../layers/script-runtime/', import.meta.url));
/** Lambda's init phase limit: loading the code gets this long, separately from the invocation timeout. */
const initTimeoutMs = 10_000;
/** A frame larger than a 6 MB result plus its logs is not the wrapper speaking. */
const maxFrameBytes = 10 * 1024 * 1024;
const rssPollMs = 25;
/** A run longer than this yields the CPU to short ones: its process tree drops to the lowest priority. */
const longRunMs = 500;

export interface WorkerSpec {
  runtime: RuntimeLabel;
  scriptDir: string;
  /** The version's installed packages (`nodejs/node_modules` or `python`), mounted read-only. */
  dependenciesDir?: string;
  memoryMb: number;
  python?: string;
  sandbox: SandboxMode;
}

/** Where the worker sees the version's packages: the sandbox's mount, or the host directory when unsandboxed. */
const dependenciesPath = (spec: WorkerSpec) =>
  spec.dependenciesDir === undefined ? undefined : spec.sandbox.kind === 'bwrap' ? sandboxPaths.dependencies : spec.dependenciesDir;

/** The interpreter's own tree (`<prefix>/bin/<exe>`), shown read-only inside the sandbox. */
const installPrefix = (executable: string) => dirname(dirname(executable));

function command(spec: WorkerSpec, workDir: string, env: Record<string, string>): SandboxedCommand {
  const sandboxed = spec.sandbox.kind === 'bwrap';
  const runtimeDir = sandboxed ? sandboxPaths.runtime : wrapperDir;
  const taskDir = sandboxed ? sandboxPaths.task : spec.scriptDir;
  const tmp = sandboxed ? sandboxPaths.tmp : workDir;
  const packages = dependenciesPath(spec);
  let interpreter: string[];
  if (spec.runtime === 'nodejs18') {
    const node = join(runtimeDir, 'nodejs');
    interpreter = [
      process.execPath,
      // Node's permission model: read the wrapper, the script and its packages, write the own temp dir, no child processes, workers or addons.
      '--experimental-permission',
      `--allow-fs-read=${node}/`,
      `--allow-fs-read=${taskDir}/`,
      ...(packages ? [`--allow-fs-read=${packages}/`] : []),
      `--allow-fs-read=${tmp}/`,
      `--allow-fs-write=${tmp}/`,
      '--disable-warning=ExperimentalWarning',
      `--max-old-space-size=${spec.memoryMb}`,
      join(node, 'worker.cjs'),
      join(taskDir, 'script.cjs'),
      inheritedDescriptors().join(','),
    ];
  } else {
    if (!spec.python) throw new Error('python3 is not installed on this machine');
    interpreter = [
      spec.python,
      '-E',
      '-S',
      '-B',
      join(runtimeDir, 'python', 'platform_worker.py'),
      join(taskDir, 'script.py'),
      String(spec.memoryMb),
      ...(packages ? [join(packages, 'python')] : []),
    ];
  }
  if (spec.sandbox.kind === 'none') return { file: interpreter[0]!, args: interpreter.slice(1), env };
  return sandboxedCommand(spec.sandbox, {
    systemDirs: [installPrefix(interpreter[0]!)],
    runtimeDir: wrapperDir,
    taskDir: spec.scriptDir,
    dependenciesDir: spec.dependenciesDir,
    // V8 reserves about 1 GB of address space up front; CPython little. The exact limit is watched on resident memory.
    addressSpaceMb: spec.memoryMb + (spec.runtime === 'nodejs18' ? 1024 : 256),
    env,
    command: interpreter,
  });
}

let inherited: number[] | undefined;

/**
 * This process's descriptors without close-on-exec: Node opens all of its own with the flag, so these came from
 * whoever started the platform, and every child inherits them. The Node wrapper closes them (Python closes all).
 */
function inheritedDescriptors(): number[] {
  inherited ??= readdirSync('/proc/self/fd')
    .map(Number)
    .filter((fd) => {
      if (fd <= 3) return false;
      try {
        const flags = /flags:\s+(\d+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
        return flags !== null && (parseInt(flags[1]!, 8) & 0o2000000) === 0;
      } catch {
        return false;
      }
    });
  return inherited;
}

/** Resident memory of a process and all its descendants, in MB; undefined when the process is gone. */
function treeResidentMb(pid: number): number | undefined {
  const rss = residentMb(pid);
  if (rss === undefined) return undefined;
  let total = rss;
  for (const child of childPids(pid)) total += treeResidentMb(child) ?? 0;
  return total;
}

const treePids = (pid: number): number[] => [pid, ...childPids(pid).flatMap(treePids)];

/** Lowest CPU priority for a worker's whole tree; children it forks later inherit it. */
function yieldCpu(pid: number) {
  for (const member of treePids(pid)) {
    try {
      setPriority(member, 19);
    } catch {
      // exited meanwhile
    }
  }
}

function childPids(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** Resident set size from /proc, in MB; undefined where /proc is missing or the process is gone. */
function residentMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

const failure = (status: 'error' | 'timeout', error: ExecutionError, duration: number, memoryUsed: number): InvokeOutcome => ({
  status,
  outputJson: 'null',
  error,
  logs: [],
  duration,
  memoryUsed: Math.ceil(memoryUsed),
});

export class ScriptWorker {
  readonly spec: WorkerSpec;
  lastUsed = Date.now();
  private readonly child: ChildProcess;
  private readonly workDir?: string;
  private readonly channel: Duplex;
  private partial: Buffer[] = [];
  private partialBytes = 0;
  private stderrTail = '';
  private readonly queue: WorkerFrame[] = [];
  private waiter?: (frame: WorkerFrame | undefined) => void;
  private exited = false;
  private killed = false;
  /** Set when something other than the wrapper wrote to the channel (user code forging frames). */
  private forged = false;
  private yielded = false;

  private constructor(spec: WorkerSpec) {
    this.spec = spec;
    if (spec.sandbox.kind === 'none') this.workDir = mkdtempSync(join(tmpdir(), 'platform-script-'));
    const tmp = this.workDir ?? sandboxPaths.tmp;
    // Only what a script needs: no platform secrets, keys or endpoints reach user code.
    const env = {
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: tmp,
      TMPDIR: tmp,
      LANG: 'C.UTF-8',
      TZ: 'UTC',
      LAMBDA_TASK_ROOT: spec.sandbox.kind === 'none' ? spec.scriptDir : sandboxPaths.task,
      // As Lambda resolves a layer's /opt/nodejs/node_modules.
      ...(spec.runtime === 'nodejs18' && dependenciesPath(spec) && { NODE_PATH: join(dependenciesPath(spec)!, 'nodejs', 'node_modules') }),
    };
    // All workers share one CPU group (cpu-shares.ts): each in a session of its own, many would crowd out the platform.
    const { file, args, env: spawnEnv, uid, gid } = inCpuShare('scripts', command(spec, tmp, env));
    this.child = spawn(file, args, {
      cwd: this.workDir ?? '/',
      env: spawnEnv,
      stdio: ['ignore', 'pipe', 'pipe', 'pipe'],
      ...(uid !== undefined && { uid, gid }),
    });
    this.channel = this.child.stdio[3] as Duplex;
    this.child.stdout!.resume();
    this.child.stderr!.on('data', (chunk: Buffer) => (this.stderrTail = (this.stderrTail + chunk.toString()).slice(-4096)));
    this.channel.on('data', (chunk: Buffer) => this.read(chunk));
    this.channel.on('error', () => undefined);
    this.child.once('exit', () => {
      this.exited = true;
      if (this.workDir) rmSync(this.workDir, { recursive: true, force: true });
      this.waiter?.(undefined);
    });
    this.child.once('error', () => this.kill());
  }

  /** A ready worker, or the script's load error (the worker is then gone). */
  static async start(spec: WorkerSpec): Promise<ScriptWorker | ExecutionError> {
    const worker = new ScriptWorker(spec);
    const frame = await worker.next(initTimeoutMs);
    if (frame !== 'timeout' && frame?.type === 'ready') return worker;
    worker.kill();
    if (frame !== 'timeout' && frame?.type === 'loadError') return frame.error;
    return {
      code: 'SCRIPT_LOAD_ERROR',
      message:
        frame === 'timeout'
          ? `loading the script took longer than ${initTimeoutMs / 1000} s`
          : `the runtime exited while loading the script: ${worker.stderrTail.trim().slice(-500)}`,
    };
  }

  get alive(): boolean {
    return !this.exited && !this.killed;
  }

  /** Kills the whole sandbox: bubblewrap's init dies with its parent, and the kernel ends every process of the pid namespace. */
  kill(): void {
    this.killed = true;
    if (!this.exited) this.child.kill('SIGKILL');
  }

  /** Resident memory of the worker's whole process tree, MB. */
  residentMb(): number | undefined {
    return this.child.pid === undefined ? undefined : treeResidentMb(this.child.pid);
  }

  async invoke(request: InvokeRequest): Promise<InvokeOutcome> {
    this.lastUsed = Date.now();
    // Whatever a previous run left behind (a resource call fired after its handler returned) is not this run's.
    this.queue.length = 0;
    const id = randomUUID();
    const started = performance.now();
    let peakMb = this.residentMb() ?? 0;
    let killedFor: 'memory' | undefined;
    const watch = setInterval(() => {
      if (!this.yielded && performance.now() - started > longRunMs && this.child.pid !== undefined) {
        this.yielded = true;
        yieldCpu(this.child.pid);
      }
      const rss = this.residentMb();
      if (rss === undefined) return;
      peakMb = Math.max(peakMb, rss);
      if (rss > this.spec.memoryMb) {
        killedFor = 'memory';
        this.kill();
      }
    }, rssPollMs);
    this.send({ type: 'invoke', id, event: request.event, context: request.context });
    try {
      for (;;) {
        const frame = await this.next(request.timeoutMs - (performance.now() - started));
        // The platform's clock, never the wrapper's: user code can write whatever it likes into a frame.
        const elapsed = performance.now() - started;
        if (frame === 'timeout') {
          this.kill();
          return failure(
            'timeout',
            { code: 'TIMEOUT', message: `the script ran longer than ${Math.round(request.timeoutMs) / 1000} s and was stopped` },
            elapsed,
            peakMb,
          );
        }
        if (frame?.type === 'result' && frame.id !== id) this.forgery();
        if (frame === undefined || this.forged) {
          const outOfMemory = killedFor === 'memory' || /heap out of memory|MemoryError/.test(this.stderrTail);
          if (this.forged)
            return failure(
              'error',
              { code: 'SCRIPT_CRASHED', message: "the script wrote to the platform's channel and its process was stopped" },
              elapsed,
              peakMb,
            );
          return outOfMemory
            ? failure(
                'error',
                { code: 'MEMORY_LIMIT_EXCEEDED', message: `the script used more than ${this.spec.memoryMb} MB` },
                elapsed,
                Math.max(peakMb, this.spec.memoryMb),
              )
            : failure(
                'error',
                { code: 'SCRIPT_CRASHED', message: `the script's process exited: ${this.stderrTail.trim().slice(-300) || 'no output'}` },
                elapsed,
                peakMb,
              );
        }
        if (frame.type === 'resourceCall') this.answerResourceCall(frame, request);
        else if (frame.type === 'log') request.onLog?.({ text: frame.text, ...(frame.step !== undefined && { step: frame.step }) });
        else if (frame.type === 'result') {
          const { status, noOp, output, error, logs } = frame;
          return { status, ...(noOp && { noOp }), outputJson: output, error: error ?? null, logs, duration: elapsed, memoryUsed: Math.ceil(peakMb) };
        } else this.forgery();
      }
    } finally {
      clearInterval(watch);
      this.lastUsed = Date.now();
    }
  }

  private forgery() {
    this.forged = true;
    this.kill();
  }

  private answerResourceCall(frame: Extract<WorkerFrame, { type: 'resourceCall' }>, request: InvokeRequest) {
    request
      .callResource(frame.name, frame.method, frame.params)
      .then((data) => this.send({ type: 'resourceResult', callId: frame.callId, ok: true, data: data ?? null }))
      .catch((error: { code?: string; message?: string }) =>
        this.send({
          type: 'resourceResult',
          callId: frame.callId,
          ok: false,
          code: error.code ?? 'RESOURCE_CALL_FAILED',
          message: error.message ?? 'the resource call failed',
        }),
      );
  }

  private send(frame: Record<string, unknown>) {
    if (!this.exited) this.channel.write(`${JSON.stringify(frame)}\n`);
  }

  /** The next frame, 'timeout', or undefined when the process is gone. */
  private next(timeoutMs: number): Promise<WorkerFrame | 'timeout' | undefined> {
    const queued = this.queue.shift();
    if (queued || this.exited) return Promise.resolve(queued);
    return new Promise((resolve) => {
      const timer = setTimeout(() => settle('timeout'), Math.max(0, timeoutMs));
      const settle = (value: WorkerFrame | 'timeout' | undefined) => {
        clearTimeout(timer);
        this.waiter = undefined;
        resolve(value);
      };
      this.waiter = settle;
    });
  }

  private deliver(line: string) {
    const frame = parseFrame(line);
    // Not a frame the wrapper sends (user code writing to the channel): this worker cannot be trusted any more.
    if (!frame) return this.forgery();
    if (this.waiter) this.waiter(frame);
    else this.queue.push(frame);
  }

  private read(chunk: Buffer) {
    let start = 0;
    let newline: number;
    while ((newline = chunk.indexOf(10, start)) >= 0) {
      this.partial.push(chunk.subarray(start, newline));
      const line = Buffer.concat(this.partial).toString('utf8');
      this.partial = [];
      this.partialBytes = 0;
      start = newline + 1;
      if (line) this.deliver(line);
    }
    if (start < chunk.length) {
      this.partial.push(chunk.subarray(start));
      this.partialBytes += chunk.length - start;
      if (this.partialBytes > maxFrameBytes) this.forgery();
    }
  }
}
