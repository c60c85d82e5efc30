// The local BuildCommandRunner: a child process in its own process group with a clean environment, at the lowest
// CPU and I/O priority; at the time limit (and after it exits, for anything it left running in the background) the
// whole group is killed. Commands that run the repository's code (npm ci, the build command) run inside the scripts'
// bubblewrap sandbox, as its unprivileged uid, with the build's own directory the only one of the platform's they
// see and no network: only a command given `egress` reaches out, through the egress guard (egress-proxy.ts).
import { spawn } from 'node:child_process';
import { chownSync, mkdirSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import type { BuildCommandRunner } from '#functions/templates/ports.js';
import { inCpuShare, lowerSession } from './cpu-shares.js';
import { type EgressProxy, startEgressProxy } from './egress-proxy.js';
import {
  type SandboxChoice,
  type SandboxMode,
  type SandboxedCommand,
  handOver,
  installSandboxCommand,
  letOthersTraverse,
  sandboxPaths,
  scriptSandbox,
} from './script-sandbox.js';

function killGroup(pid: number | undefined) {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // The group is gone already.
  }
}

/** Splits a stream into lines, handing each to `onLine`; the last partial line comes out at the end. */
function lines(onLine: (line: string) => void) {
  let pending = '';
  return {
    push(chunk: Buffer) {
      pending += chunk.toString('utf8');
      const parts = pending.split(/\r?\n/);
      pending = parts.pop()!;
      for (const part of parts) onLine(part);
      // A line without an end (progress bars) must not grow without bound.
      if (pending.length > 8192) {
        onLine(pending);
        pending = '';
      }
    },
    end() {
      if (pending) onLine(pending);
      pending = '';
    },
  };
}

/**
 * Runs in a scratch sandbox: copies the seed in, runs the command with fd 3 closed, and only if it succeeded
 * streams the scratch space out as a tar on fd 3. Arguments: seed, scratch, then the command.
 */
const scratchScript =
  'set -e; seed=$1; scratch=$2; shift 2; cp -a "$seed/." "$scratch/"; status=0; (exec 3>&-; exec "$@") || status=$?; ' +
  '[ "$status" -eq 0 ] || exit "$status"; exec tar -C "$scratch" -cf - . >&3';

type Request = Parameters<BuildCommandRunner['run']>[0];

/** The command as it starts: in the sandbox when isolated (and a sandbox is in use), as it is otherwise. */
function commandOf(request: Request, egress: EgressProxy | undefined, sandboxMode: () => SandboxMode): SandboxedCommand & { cwd?: string; scratch?: boolean } {
  const sandbox = request.isolated && sandboxMode();
  if (!request.isolated || !sandbox || sandbox.kind !== 'bwrap') return { file: request.command, args: request.args, env: request.env, cwd: request.cwd };
  const { writableDir, scratchBytes } = request.isolated;
  letOthersTraverse([dirname(writableDir), dirname(dirname(writableDir))]);
  // Once per build: after the first sandboxed step everything new in the directory is the sandbox uid's already.
  if (sandbox.runAs && statSync(writableDir).uid !== sandbox.runAs.uid) handOver(sandbox, [writableDir]);
  const command = ['/usr/bin/env', '-C', request.cwd, request.command, ...request.args];
  const spec = installSandboxCommand(sandbox, {
    // Node and npm where they are installed; /usr is there already.
    systemDirs: [dirname(dirname(process.execPath))],
    writable: scratchBytes ? {} : { [writableDir]: writableDir },
    addressSpaceMb: 4096,
    env: request.env,
    newSession: false,
    command: scratchBytes ? ['/bin/sh', '-c', scratchScript, 'sh', sandboxPaths.scratchSeed, writableDir, ...command] : command,
    ...(egress && { egressSocketDir: egress.socketDir }),
    // Mounted where the directory is, so the command's paths are the same on the copy.
    ...(scratchBytes && { scratch: { path: writableDir, bytes: scratchBytes, seed: writableDir } }),
  });
  return { ...spec, scratch: Boolean(scratchBytes) };
}

/** Unpacks the tar a scratch sandbox streams out, as the sandbox uid: its symlinks and names get no more than it had. */
function unpack(stream: NodeJS.ReadableStream, into: string, sandbox: SandboxMode): Promise<boolean> {
  mkdirSync(into);
  const runAs = sandbox.kind === 'bwrap' ? sandbox.runAs : undefined;
  if (runAs) chownSync(into, runAs.uid, runAs.gid);
  const tar = spawn('tar', ['-x', '-C', into, '--no-same-owner', '--no-same-permissions'], { stdio: ['pipe', 'ignore', 'ignore'], ...runAs });
  stream.pipe(tar.stdin);
  tar.stdin.on('error', () => undefined);
  return new Promise((resolve) => {
    tar.once('error', () => resolve(false));
    tar.once('close', (code) => resolve(code === 0));
  });
}

/**
 * Builds yield to everything else on the machine: the API, scripts, other tenants' runs. Nice orders the build's own
 * processes; the share that holds against other sessions is its CPU group's (cpu-shares.ts).
 */
const lowPriority = <T extends SandboxedCommand>(command: T): T =>
  inCpuShare('builds', {
    ...command,
    file: '/usr/bin/nice',
    args: ['-n', '19', '/usr/bin/ionice', '-c', '2', '-n', '7', command.file, ...command.args],
  });

/** The egress proxy of a sandboxed command that may reach a registry; none otherwise (the command has no network). */
async function egressOf(request: Request, sandboxMode: () => SandboxMode): Promise<EgressProxy | undefined> {
  const egress = request.isolated?.egress;
  if (!egress || sandboxMode().kind !== 'bwrap') return undefined;
  return startEgressProxy({ allowedOrigins: egress.allowedOrigins, onRefused: request.onLine });
}

export interface StoppableRunner extends BuildCommandRunner {
  /** Kills every command running and starts none after: the local platform is stopping. */
  stop(): void;
}

/** Builds' commands as child processes; isolated ones in the sandbox `sandbox` chooses, probed at the first that needs it. */
export const childProcessRunner = (sandbox: SandboxChoice): StoppableRunner => {
  const sandboxMode = () => scriptSandbox(sandbox);
  /** Process groups of running commands: a build's are in a session of their own, and outlive the platform unless killed. */
  const groups = new Set<number>();
  let stopped = false;
  return {
    async run(request) {
      const egress = await egressOf(request, sandboxMode);
      try {
        if (stopped) {
          request.onLine(`the platform is stopping: ${request.command} was not started`);
          return { exitCode: null, timedOut: false };
        }
        return await runCommand(request, egress, sandboxMode, groups);
      } finally {
        await egress?.close();
      }
    },
    stop() {
      stopped = true;
      for (const pid of groups) killGroup(pid);
      groups.clear();
    },
  };
};

function runCommand(
  request: Request,
  egress: EgressProxy | undefined,
  sandboxMode: () => SandboxMode,
  groups: Set<number>,
): Promise<{ exitCode: number | null; timedOut: boolean; resultDir?: string }> {
  return new Promise((resolve) => {
    const { command, timeoutMs, onLine } = request;
    const started = lowPriority(commandOf(request, egress, sandboxMode));
    const child = spawn(started.file, started.args, {
      env: started.env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', started.scratch ? 'pipe' : 'ignore'],
      ...(started.cwd && { cwd: started.cwd }),
      ...(started.uid !== undefined && { uid: started.uid, gid: started.gid }),
    });
    lowerSession(child.pid);
    const resultDir = started.scratch ? `${request.isolated!.writableDir}.result` : undefined;
    const unpacked = resultDir ? unpack(child.stdio[3] as NodeJS.ReadableStream, resultDir, sandboxMode()) : Promise.resolve(true);
    if (child.pid) groups.add(child.pid);
    const out = lines(onLine);
    const err = lines(onLine);
    child.stdout!.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr!.on('data', (chunk: Buffer) => err.push(chunk));
    let timedOut = false;
    const timer = setTimeout(
      () => {
        timedOut = true;
        killGroup(child.pid);
      },
      Math.max(1, timeoutMs),
    );
    child.once('error', (error) => {
      clearTimeout(timer);
      onLine(`could not start ${command}: ${error.message}`);
      resolve({ exitCode: null, timedOut: false });
    });
    // Whatever the command left running in the background holds its output open: end it with the command.
    child.once('exit', () => {
      clearTimeout(timer);
      killGroup(child.pid);
      groups.delete(child.pid!);
    });
    child.once('close', async (exitCode) => {
      out.end();
      err.end();
      const copied = await unpacked;
      if (exitCode === 0 && !copied) onLine("the build's result could not be copied out of its scratch space");
      resolve({ exitCode: exitCode === 0 && !copied ? 1 : exitCode, timedOut, ...(resultDir && { resultDir }) });
    });
  });
}
