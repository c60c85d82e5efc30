// The operating-system layer alone: raw Python under the same bubblewrap command the pool uses, without the
// wrappers' in-language guards (no audit hook, ctypes allowed, fork allowed), so each attack meets only the kernel.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { reachableByOthers, sandboxedCommand, scriptSandbox } from '../../functions/adapters/local/script-sandbox.js';
import { wrapperDir } from '../../functions/adapters/local/script-worker.js';
import { pythonExecutable } from '../../functions/scripts/authoring/python.js';
import { type Target, escapeTally, plantTargets, sentinel } from '../support/sandbox-attacks.js';

let target: Target;
let python: string;
const tally = escapeTally('sandbox attacks (operating-system layer alone)');

beforeAll(async () => {
  target = plantTargets();
  const found = (await pythonExecutable('python3'))!;
  python = reachableByOthers(found) ? found : '/usr/bin/python3';
});
afterAll(() => console.log(tally.summary()));

function sandboxed(code: string) {
  const mode = scriptSandbox();
  if (mode.kind !== 'bwrap') throw new Error('these tests need the bubblewrap sandbox');
  const { file, args, env, uid, gid } = sandboxedCommand(mode, {
    systemDirs: [dirname(dirname(python))],
    runtimeDir: wrapperDir,
    taskDir: dirname(target.otherCode),
    addressSpaceMb: 512,
    env: { PATH: '/usr/bin:/bin' },
    command: [python, '-c', code],
  });
  return spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'], ...(uid !== undefined && { uid, gid }) });
}

async function attack(code: string): Promise<Record<string, unknown>> {
  const child = sandboxed(code);
  let out = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  await new Promise((exited) => child.once('close', exited));
  return JSON.parse(out.trim().split('\n').at(-1)!) as Record<string, unknown>;
}

const attempt = `
import ctypes, json, os, resource, signal, socket
found = {}
def trying(name, action):
    try:
        found[name] = action()
    except BaseException as error:
        found[name] = 'refused: ' + type(error).__name__
`;

describe('sandbox: the operating-system layer alone', () => {
  it('shows no platform file, other script, server /proc or environment, and nothing outside tmp is writable', async () => {
    // Act
    const found = await attack(`${attempt}
for index, path in enumerate(${JSON.stringify([target.devFile, target.keyFile, target.dynamoFile, `/proc/${process.pid}/environ`, `/proc/${process.pid}/cmdline`])}):
    trying('read%d' % index, lambda: open(path).read())
libc = ctypes.CDLL(None)
trying('ctypesOpen', lambda: libc.open(${JSON.stringify(target.devFile)}.encode(), 0))
trying('root', lambda: sorted(os.listdir('/')))
trying('environ', lambda: open('/proc/1/environ').read() + open('/proc/self/environ').read())
trying('processes', lambda: [open('/proc/%s/cmdline' % pid).read() for pid in os.listdir('/proc') if pid.isdigit()])
for index, path in enumerate(['/usr/owned', '/var/task/script.cjs', '/opt/platform-runtime/owned', '/etc/owned']):
    trying('write%d' % index, lambda: open(path, 'w').write('owned'))
trying('tmp', lambda: open('/tmp/mine', 'w').write('ok'))
trying('descriptors', lambda: sorted(int(fd) for fd in os.listdir('/proc/self/fd')))
print(json.dumps(found))
`);
    // Assess
    const text = JSON.stringify(found);
    const escaped = tally.record(
      'files, /proc and environment',
      text.includes(sentinel) || text.includes('vitest') || /write\d":\d/.test(text) || found.ctypesOpen !== -1,
    );
    expect(escaped, text).toBe(false);
    expect(found.root).toEqual(expect.not.arrayContaining(['work', 'root', 'home']));
    expect(found.tmp).toBe(2);
    // 3 is the directory listing's own descriptor; nothing else of the platform's is open.
    expect((found.descriptors as number[]).filter((fd) => fd > 3 && fd < 250)).toEqual([]);
  });

  it('reaches no network, no platform process and no other sandbox, by signal or priority', async () => {
    // Prepare: a neighbour sandbox that must survive the attack.
    const neighbour = sandboxed('import time\ntime.sleep(60)');
    const priorityBefore = readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(' ')[18];
    // Act
    const found = await attack(`${attempt}
trying('interfaces', lambda: [name for _, name in socket.if_nameindex()])
trying('udp', lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('10.0.0.1', 53)))
trying('tcp', lambda: socket.create_connection(('1.1.1.1', 443), timeout=2) and 'connected')
trying('killServer', lambda: os.kill(${process.pid}, signal.SIGSTOP))
trying('reniceServer', lambda: os.setpriority(os.PRIO_PROCESS, ${process.pid}, 19))
trying('reniceUser', lambda: os.setpriority(os.PRIO_USER, os.getuid(), 19))
trying('uid', lambda: [os.getuid(), os.geteuid()])
print(json.dumps(found), flush=True)
# Every process this sandbox can signal: its own, never the neighbour's or the platform's.
os.kill(-1, signal.SIGKILL)
`);
    const neighbourAlive = neighbour.exitCode === null;
    neighbour.kill('SIGKILL');
    // Assess
    const text = JSON.stringify(found);
    const escaped = tally.record(
      'network, processes, signals and priority',
      text.includes('connected') ||
        !String(found.killServer).startsWith('refused') ||
        !String(found.reniceServer).startsWith('refused') ||
        !neighbourAlive ||
        readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(' ')[18] !== priorityBefore,
    );
    expect(escaped, text).toBe(false);
    expect(found.interfaces).toEqual(['lo']);
    expect(found.uid).not.toContain(0);
  });

  it('caps processes, memory and file size in the kernel, and a kill ends the whole process tree', async () => {
    // Act
    const found = await attack(`${attempt}
children = 0
try:
    for _ in range(500):
        if os.fork() == 0:
            signal.pause()
            os._exit(0)
        children += 1
except OSError:
    pass
found['children'] = children
trying('memory', lambda: len(bytearray(1024 * 1024 * 1024)))
trying('bigFile', lambda: open('/tmp/big', 'wb').write(b'x' * (128 * 1024 * 1024)))
print(json.dumps(found), flush=True)
os.killpg(0, signal.SIGKILL)
`);
    const sleeper = sandboxed('import os, time\nfor _ in range(5):\n    os.fork()\ntime.sleep(60)');
    const tree = await vi.waitFor(
      () => {
        const pids = descendants(sleeper.pid!);
        expect(pids.length).toBeGreaterThanOrEqual(32);
        return pids;
      },
      { timeout: 20_000, interval: 100 },
    );
    sleeper.kill('SIGKILL');
    await vi.waitFor(() => expect(tree.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]), { timeout: 20_000, interval: 100 });
    // Assess
    const escaped = tally.record(
      'process, memory and file-size limits',
      (found.children as number) >= 64 || typeof found.memory === 'number' || typeof found.bigFile === 'number',
    );
    expect(escaped, JSON.stringify(found)).toBe(false);
  });
});

function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}
