// Operating-system isolation of local script workers, as Windmill does with nsjail: bubblewrap gives each worker
// new user, mount, pid, ipc, uts, network and cgroup namespaces, an unprivileged uid, read-only system directories,
// runtime layer and code, a private size-capped tmp, and nothing else; prlimit adds kernel limits on memory,
// processes, file size and open files. The in-language guards of the wrappers stay as a second layer.
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, lstatSync, readdirSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { egressSocketName } from './egress-proxy.js';

/** Where the sandbox shows the runtime layer, the version's code and the private tmp. */
export const sandboxPaths = {
  runtime: '/opt/platform-runtime',
  task: '/var/task',
  tmp: '/tmp',
  dependencies: '/opt/dependencies',
  scratchSeed: '/opt/scratch-seed',
} as const;

/** The uid scripts run as when the platform runs as root (nobody); otherwise the platform's own uid, unprivileged. */
const sandboxUid = 65534;
/** Processes (threads included) one worker may hold: enough for a runtime's own threads, too few for a fork bomb. */
export const maxProcessesPerWorker = 64;
export const maxFileBytes = 64 * 1024 * 1024;
const tmpBytes = 64 * 1024 * 1024;
const maxOpenFiles = 256;

export class SandboxUnavailableError extends Error {
  readonly code = 'SANDBOX_UNAVAILABLE';
}

export type SandboxMode = { kind: 'bwrap'; runAs?: { uid: number; gid: number } } | { kind: 'none' };

export interface SandboxedCommand {
  file: string;
  args: string[];
  /** For bubblewrap itself too: its init is pid 1 in the sandbox, and its environment is readable there. */
  env: Record<string, string>;
  uid?: number;
  gid?: number;
}

export interface SandboxRequest {
  /** Host directories shown read-only at the same path (an interpreter installed outside /usr). */
  systemDirs: string[];
  runtimeDir: string;
  taskDir: string;
  /** Kernel cap on one process's address space. */
  addressSpaceMb: number;
  /** The whole environment the script sees; nothing of the platform's passes through. */
  env: Record<string, string>;
  command: string[];
  /** The version's installed packages, shown read-only at sandboxPaths.dependencies. */
  dependenciesDir?: string;
}

const namespaceArgs = ['--unshare-user', '--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try', '--disable-userns'];

/** `newSession`: bubblewrap starts a session (no terminal to inject input into) unless the caller's process did. */
function baseArgs(newSession = true): string[] {
  const args = [
    ...namespaceArgs,
    '--unshare-net',
    '--die-with-parent',
    ...(newSession ? ['--new-session'] : []),
    '--cap-drop',
    'ALL',
    '--hostname',
    'sandbox',
    '--ro-bind',
    '/usr',
    '/usr',
  ];
  for (const dir of ['/bin', '/lib', '/lib64', '/lib32', '/sbin']) {
    if (!existsSync(dir)) continue;
    args.push(...(lstatSync(dir).isSymbolicLink() ? ['--symlink', realpathSync(dir).replace(/^\//, ''), dir] : ['--ro-bind', dir, dir]));
  }
  for (const file of ['/etc/localtime', '/etc/ssl']) if (existsSync(file)) args.push('--ro-bind', file, file);
  return [...args, '--proc', '/proc', '--dev', '/dev', '--size', String(tmpBytes), '--tmpfs', sandboxPaths.tmp, '--chdir', sandboxPaths.tmp];
}

/** Whether `path` and every directory above it let other users in: the sandbox uid must reach what it binds. */
export function reachableByOthers(path: string): boolean {
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    if (!existsSync(dir) || (statSync(dir).mode & 0o005) === 0) return false;
    if (dir === '/') return true;
  }
}

function probe(): SandboxMode {
  const runAs = process.getuid?.() === 0 ? { uid: sandboxUid, gid: sandboxUid } : undefined;
  const result = spawnSync('bwrap', [...baseArgs(), '--', 'true'], { encoding: 'utf8', timeout: 10_000, ...runAs });
  if (result.status === 0) return { kind: 'bwrap', ...(runAs && { runAs }) };
  if ((result.error as NodeJS.ErrnoException | undefined)?.code === 'ENOENT') {
    throw new SandboxUnavailableError(
      `scripts cannot run: bubblewrap (bwrap) is not installed. Run this, then start again: ${process.getuid?.() === 0 ? '' : 'sudo '}apt-get install -y bubblewrap ` +
        '(or set SCRIPT_SANDBOX=none to run scripts without operating-system isolation: trusted code only).',
    );
  }
  const reason = result.error ? `${result.error.message}` : (result.stderr || `exit status ${result.status}`).trim();
  throw new SandboxUnavailableError(
    `scripts cannot run: the bubblewrap sandbox does not work on this machine (${reason}). Install bubblewrap (Debian: apt-get install -y bubblewrap) ` +
      'and allow unprivileged user namespaces, or set SCRIPT_SANDBOX=none to run scripts without operating-system isolation (trusted code only).',
  );
}

let probed: SandboxMode | undefined;

/** The operator's choice (SCRIPT_SANDBOX): bubblewrap unless `none`, running scripts without it (trusted code only). */
export type SandboxChoice = 'bwrap' | 'none';

/** How workers are isolated here; throws SandboxUnavailableError where bubblewrap cannot run and `none` was not chosen. */
export function scriptSandbox(choice: SandboxChoice = 'bwrap'): SandboxMode {
  if (choice === 'none') return { kind: 'none' };
  probed ??= probe();
  return probed;
}

/** One line for `npm start`: how scripts are isolated (it has refused to start where they could not run). */
export function scriptSandboxStatus(choice: SandboxChoice): string {
  const mode = scriptSandbox(choice);
  return mode.kind === 'bwrap'
    ? `Scripts run under bubblewrap as uid ${mode.runAs?.uid ?? process.getuid?.()} (no network, no view of the platform's files)`
    : 'SCRIPT_SANDBOX=none: scripts run WITHOUT operating-system isolation; run trusted code only';
}

/** Host directories outside /usr (shown already) read-only at the same path. */
const systemBinds = (dirs: string[]) => dirs.filter((dir) => dir !== '/usr' && !dir.startsWith('/usr/')).flatMap((dir) => ['--ro-bind', dir, dir]);

export function sandboxedCommand(mode: Extract<SandboxMode, { kind: 'bwrap' }>, request: SandboxRequest): SandboxedCommand {
  const binds = systemBinds(request.systemDirs);
  const limits = [
    `--as=${request.addressSpaceMb * 1024 * 1024}`,
    `--nproc=${maxProcessesPerWorker}`,
    `--fsize=${maxFileBytes}`,
    `--nofile=${maxOpenFiles}`,
    '--core=0',
  ];
  return {
    file: 'bwrap',
    args: [
      ...baseArgs(),
      ...binds,
      '--ro-bind',
      request.runtimeDir,
      sandboxPaths.runtime,
      '--ro-bind',
      request.taskDir,
      sandboxPaths.task,
      ...(request.dependenciesDir ? ['--ro-bind', request.dependenciesDir, sandboxPaths.dependencies] : []),
      // The root bubblewrap builds is a tmpfs of its own: read-only once everything is mounted, tmp alone stays writable.
      '--remount-ro',
      '/',
      '--clearenv',
      ...Object.entries(request.env).flatMap(([name, value]) => ['--setenv', name, value]),
      // Set inside the namespaces: the process count is then the sandbox's own, not shared by every worker of the uid.
      '--',
      '/usr/bin/prlimit',
      ...limits,
      '--',
      ...request.command,
    ],
    env: request.env,
    ...mode.runAs,
  };
}

export interface InstallSandboxRequest {
  systemDirs: string[];
  /** Host directories shown writable inside, by their path inside. */
  writable: Record<string, string>;
  addressSpaceMb: number;
  env: Record<string, string>;
  command: string[];
  /** The egress proxy's socket directory (egress-proxy.ts): the command's only way out. Without it, no network at all. */
  egressSocketDir?: string;
  /** A private tmpfs of `bytes` at `path`, with `seed` shown read-only at sandboxPaths.scratchSeed to start from. */
  scratch?: { path: string; bytes: number; seed: string };
  /**
   * False for a command spawned as a session leader without a terminal (a build): it needs no session of its own,
   * and a new one would leave the session whose CPU share the platform lowered (cpu-shares.ts).
   */
  newSession?: boolean;
}

/** Where the forwarder and the egress socket show inside. */
const egressPaths = { forwarder: '/opt/egress-forwarder.mjs', socketDir: '/run/egress' } as const;
const forwarderFile = fileURLToPath(new URL('./egress-forwarder.mjs', import.meta.url));

/**
 * A package manager's or a build's sandbox: no network of its own (a package manager reaches its registry through
 * the egress proxy only), install scripts never run (the caller's flags), and the only writable places are the
 * install's own directories and the private tmp; the data directory is not there.
 */
export function installSandboxCommand(mode: Extract<SandboxMode, { kind: 'bwrap' }>, request: InstallSandboxRequest): SandboxedCommand {
  const binds = systemBinds(request.systemDirs);
  const writable = Object.entries(request.writable).flatMap(([inside, host]) => ['--bind', host, inside]);
  const limits = [
    `--as=${request.addressSpaceMb * 1024 * 1024}`,
    `--nproc=${maxProcessesPerWorker}`,
    `--fsize=${maxFileBytes}`,
    `--nofile=${maxOpenFiles * 4}`,
    '--core=0',
  ];
  // The forwarder is Node, wherever this one is installed.
  const egress = request.egressSocketDir
    ? [
        ...systemBinds([dirname(dirname(process.execPath))]),
        '--ro-bind',
        forwarderFile,
        egressPaths.forwarder,
        '--ro-bind',
        request.egressSocketDir,
        egressPaths.socketDir,
      ]
    : [];
  const scratch = request.scratch
    ? ['--ro-bind', request.scratch.seed, sandboxPaths.scratchSeed, '--size', String(request.scratch.bytes), '--tmpfs', request.scratch.path]
    : [];
  const command = request.egressSocketDir
    ? [process.execPath, egressPaths.forwarder, `${egressPaths.socketDir}/${egressSocketName}`, ...request.command]
    : request.command;
  return {
    file: 'bwrap',
    args: [
      ...baseArgs(request.newSession),
      ...binds,
      ...egress,
      ...writable,
      ...scratch,
      '--clearenv',
      ...Object.entries(request.env).flatMap(([name, value]) => ['--setenv', name, value]),
      '--',
      '/usr/bin/prlimit',
      ...limits,
      '--',
      ...command,
    ],
    env: request.env,
    ...mode.runAs,
  };
}

/** The sandbox runs as an unprivileged uid: it owns the files of the work it does there, and nothing else. */
export function handOver(sandbox: SandboxMode, dirs: string[]) {
  if (sandbox.kind !== 'bwrap' || !sandbox.runAs) return;
  const { uid, gid } = sandbox.runAs;
  for (const dir of dirs) {
    chownSync(dir, uid, gid);
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) chownSync(join(entry.parentPath, entry.name), uid, gid);
  }
}

/** Bubblewrap, as the sandbox uid, binds a work directory: the ones above it become traversable (not listable). */
export function letOthersTraverse(dirs: string[]) {
  for (const dir of dirs) {
    const { mode } = statSync(dir);
    if ((mode & 0o001) === 0) chmodSync(dir, (mode & 0o777) | 0o711);
  }
}
