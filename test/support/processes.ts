// This machine's processes as /proc shows them to the host: found by their command line, and the CPU share each
// runs under (its cgroup's weight, or its session's autogroup nice where no cgroup holds).
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { type CpuClass, cpuGroupNames, cpuShareMode, cpuWeights } from '../../functions/adapters/local/cpu-shares.js';

const pids = () => readdirSync('/proc').filter((entry) => /^\d+$/.test(entry));
const alive = (pid: string) => !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));

/**
 * Processes of this machine running exactly `command`, zombies left out (gone in all but name). Read from the host's
 * /proc: a sandboxed build has a pid namespace of its own, so it cannot tell its pids out.
 */
export function runningWith(command: string[]): number[] {
  return pids().flatMap((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8') === `${command.join('\0')}\0` && alive(pid) ? [Number(pid)] : [];
    } catch {
      return [];
    }
  });
}

/** Live children of `parent` whose command line holds `part`. */
export function childrenWith(parent: number, part: string): number[] {
  return pids().flatMap((pid) => {
    try {
      const parentPid = Number(/^\d+ \(.*\) \S (\d+)/.exec(readFileSync(`/proc/${pid}/stat`, 'utf8'))?.[1]);
      return parentPid === parent && readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').includes(part) && alive(pid) ? [Number(pid)] : [];
    } catch {
      return [];
    }
  });
}

/** The CPU share a process runs under: its cpu cgroup and that group's weight, or its autogroup's nice. */
export function cpuShareOf(pid: number): { group: string; weight: number } | { autogroupNice: number } {
  const mode = cpuShareMode();
  if (mode.kind !== 'cgroup') return { autogroupNice: Number(/nice (-?\d+)/.exec(readFileSync(`/proc/${pid}/autogroup`, 'utf8'))![1]) };
  const line = readFileSync(`/proc/${pid}/cgroup`, 'utf8')
    .split('\n')
    .find((entry) => (mode.version === 2 ? entry.startsWith('0::') : entry.split(':')[1]!.split(',').includes('cpu')))!;
  const group = line.split(':')[2]!;
  const root = dirname(mode.groups.builds);
  return { group, weight: Number(readFileSync(join(root, group, cpuWeights[mode.version].file), 'utf8')) };
}

/** What `cpuShareOf` answers for a process of the class where cgroups hold: its group at the class's weight. */
export function groupShare(cpuClass: CpuClass): { group: string; weight: number } {
  const mode = cpuShareMode();
  if (mode.kind !== 'cgroup') throw new Error('no CPU cgroups on this machine');
  return { group: `/${cpuGroupNames[cpuClass]}`, weight: cpuWeights[mode.version][cpuClass] };
}
