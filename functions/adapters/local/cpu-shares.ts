// CPU shares of the local sandboxes that hold across sessions. Linux's autogroup scheduling shares the CPU between
// sessions first and by nice only within one: a build at nice 19 in a session of its own (every sandbox starts one)
// weighs as much as the whole platform, and a tenant's busy build took a neighbour's short script run from 22 to
// 100 ms. So each class of sandbox goes into a CPU cgroup of its own at the root of the hierarchy, beside the
// sessions: builds at an eighth of a session's weight, scripts (all workers together) at one session's weight, so a
// flood of workers cannot crowd out the API either. A process cannot leave its cgroup (the sandbox shows no cgroup
// file system, and every other group's file is root's), whatever sessions it starts. Where no cgroup can be made
// (not root, no delegated cpu controller) builds fall back to their session's autogroup at nice 19, which a hostile
// build can escape by starting a session of its own: the start-up line says which holds.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { logger } from '#platform/logger.js';
import type { SandboxedCommand } from './script-sandbox.js';

export type CpuClass = 'builds' | 'scripts';

export type CpuShareMode = { kind: 'cgroup'; version: 1 | 2; groups: Record<CpuClass, string> } | { kind: 'autogroup' } | { kind: 'none' };

/** The groups' names, shared by every platform on the machine: all their builds yield to everything else. */
export const cpuGroupNames: Record<CpuClass, string> = { builds: 'platform-builds', scripts: 'platform-scripts' };

/**
 * Per version, the weight file and each class's weight: scripts one session's default, builds an eighth of it. A
 * busy neighbour keeps at least 8/9 of a core against any number of builds, and builds together keep 1/9 against
 * one busy session: the kernel's minimum (1/512) would let a tenant's busy scripts starve every build past its limit.
 */
export const cpuWeights = {
  1: { file: 'cpu.shares', builds: 128, scripts: 1024 },
  2: { file: 'cpu.weight', builds: 12, scripts: 100 },
} as const;

const autogroupSwitch = '/proc/sys/kernel/sched_autogroup_enabled';
/** A build's session (autogroup) in the fallback: the lowest nice, as its processes have. */
const autogroupNice = 19;

/** The cpu controller's root: cgroup v2's unified hierarchy when it has the controller, else v1's cpu hierarchy. */
function cpuRoot(): { version: 1 | 2; dir: string } | undefined {
  const unified = '/sys/fs/cgroup';
  if (existsSync(join(unified, 'cgroup.controllers')) && readFileSync(join(unified, 'cgroup.controllers'), 'utf8').split(/\s+/).includes('cpu'))
    return { version: 2, dir: unified };
  const v1 = join(unified, 'cpu');
  if (existsSync(join(v1, 'cpu.shares'))) return { version: 1, dir: v1 };
  return undefined;
}

/** Drops to the sandbox uid after joining a group (util-linux, as prlimit). */
const setpriv = '/usr/bin/setpriv';

function makeGroups(): CpuShareMode | undefined {
  const root = cpuRoot();
  // As root, joining a group then dropping to the sandbox uid needs setpriv.
  if (!root || (process.getuid?.() === 0 && !existsSync(setpriv))) return undefined;
  try {
    if (root.version === 2 && !readFileSync(join(root.dir, 'cgroup.subtree_control'), 'utf8').split(/\s+/).includes('cpu'))
      writeFileSync(join(root.dir, 'cgroup.subtree_control'), '+cpu');
    const weights = cpuWeights[root.version];
    const groups = {} as Record<CpuClass, string>;
    for (const cpuClass of ['builds', 'scripts'] as const) {
      const dir = join(root.dir, cpuGroupNames[cpuClass]);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, weights.file), String(weights[cpuClass]));
      groups[cpuClass] = dir;
    }
    return { kind: 'cgroup', version: root.version, groups };
  } catch (error) {
    logger.debug('no CPU cgroup for the sandboxes', { error: (error as Error).message });
    return undefined;
  }
}

let probed: CpuShareMode | undefined;

/** How sandboxes get their CPU share on this machine, found (and the groups made) once per process. */
export function cpuShareMode(): CpuShareMode {
  probed ??= makeGroups() ?? (existsSync(autogroupSwitch) && readFileSync(autogroupSwitch, 'utf8').trim() === '1' ? { kind: 'autogroup' } : { kind: 'none' });
  return probed;
}

/** One line for `npm start`: what keeps builds from starving the platform and other tenants' runs. */
export function cpuShareStatus(): string {
  const mode = cpuShareMode();
  if (mode.kind === 'cgroup') {
    const { file, builds, scripts } = cpuWeights[mode.version];
    return `Builds run in the CPU cgroup ${mode.groups.builds} (${file} ${builds}), scripts in ${mode.groups.scripts} (${file} ${scripts})`;
  }
  if (mode.kind === 'autogroup')
    return 'No writable CPU cgroup (run as root or delegate the cpu controller): builds run in sessions niced to 19, which a build starting its own session escapes';
  return 'No CPU cgroup and no autogroup scheduling: builds run at nice 19';
}

/**
 * Joins the command to its class's group before it runs anything: a shell writes its own pid into the group and
 * execs the command, so every process the command starts is born inside. The shell runs as the platform's user (a
 * group is root's); the command then drops to the sandbox uid as the spawn would have.
 */
const joinGroup = 'echo $$ > "$0/cgroup.procs" || { echo "could not join the CPU group $0" >&2; exit 126; }; exec "$@"';

export function inCpuShare<T extends SandboxedCommand>(cpuClass: CpuClass, command: T): T {
  const mode = cpuShareMode();
  if (mode.kind !== 'cgroup') return command;
  const { uid, gid, ...rest } = command;
  const dropTo = uid === undefined ? [] : [setpriv, `--reuid=${uid}`, `--regid=${gid}`, '--clear-groups', '--'];
  return { ...rest, file: '/bin/sh', args: ['-c', joinGroup, mode.groups[cpuClass], ...dropTo, command.file, ...command.args] } as T;
}

/**
 * The fallback, for a command spawned in a session of its own: its session's autogroup goes to nice 19, so that
 * everything in the session weighs as little as one niced process. Nothing to do where cgroups hold.
 */
export function lowerSession(pid: number | undefined): void {
  if (!pid || cpuShareMode().kind !== 'autogroup') return;
  try {
    writeFileSync(`/proc/${pid}/autogroup`, String(autogroupNice));
  } catch {
    // The process ended already.
  }
}
