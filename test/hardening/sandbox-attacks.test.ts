// Hostile scripts in both runtimes against the local pool as `npm start` runs it (bubblewrap, the wrappers' guards
// behind it): each test fails if its attack works. Targets: the platform's files and /proc, its environment, its
// processes and their priority, native code, the channel's descriptors, the network, memory, processes, output.
import { createSocket } from 'node:dgram';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { getPriority, networkInterfaces } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LocalScriptRuntime } from '../../functions/adapters/local/script-pool.js';
import { computeCostUsd } from '../../functions/scripts/runs/cost.js';
import type { RuntimeLabel } from '../../functions/scripts/model.js';
import { type Target, attackPool, attackRequest, escapeTally, plantTargets, sentinel } from '../support/sandbox-attacks.js';

let target: Target;
let pool: LocalScriptRuntime;
const tally = escapeTally('sandbox attacks (node and python, through the pool)');

beforeAll(() => {
  target = plantTargets();
  pool = attackPool(target);
});
afterAll(async () => {
  console.log(tally.summary());
  await pool.stop();
});

const run = async (runtime: RuntimeLabel, code: string) => pool.invoke(await attackRequest(runtime, code));
const leaks = (outcome: unknown) => JSON.stringify(outcome).includes(sentinel);
const snapshot = () => [target.devFile, target.keyFile, target.dynamoFile, target.otherCode].map((file) => readFileSync(file, 'utf8'));

const readTargets = () => [
  target.devFile,
  target.keyFile,
  target.dynamoFile,
  target.otherCode,
  `/proc/1/root${target.devFile}`,
  `/proc/${process.pid}/root${target.keyFile}`,
  `/proc/${process.pid}/environ`,
  '/proc/1/environ',
  '/proc/self/environ',
  `../../../../../..${target.devFile}`,
];
const writeTargets = () => [target.otherCode, target.devFile, '/var/task/script.cjs', '/usr/platform-owned', `${target.dataDir}/owned`];

const attacks: Record<string, { node: () => string; python: () => string; escaped: (outcome: Awaited<ReturnType<typeof run>>) => boolean }> = {
  'read the admin key, the credential key, DynamoDB Local files, another script and the server /proc; write outside tmp': {
    node: () => `export async function handler() {
      const fs = require('fs'); const found = [];
      for (const path of ${JSON.stringify(readTargets())}) { try { found.push(fs.readFileSync(path, 'utf8')); } catch (error) { found.push(error.code); } }
      for (const path of ${JSON.stringify(writeTargets())}) { try { fs.writeFileSync(path, 'owned'); found.push('wrote ' + path); } catch (error) { found.push(error.code); } }
      try { fs.linkSync(${JSON.stringify(target.devFile)}, '/tmp/linked'); found.push(fs.readFileSync('/tmp/linked', 'utf8')); } catch (error) { found.push(error.code); }
      return found;
    }`,
    python: () => `import os
def handler(event, context):
    found = []
    for path in ${JSON.stringify(readTargets())}:
        try:
            found.append(open(path).read())
        except Exception as error:
            found.append(type(error).__name__)
    for path in ${JSON.stringify(writeTargets())}:
        try:
            with open(path, 'w') as out:
                out.write('owned')
            found.append('wrote ' + path)
        except Exception as error:
            found.append(type(error).__name__)
    try:
        root = os.open('/', os.O_RDONLY)
        found.append(os.read(os.open(${JSON.stringify(target.devFile.slice(1))}, os.O_RDONLY, dir_fd=root), 200).decode())
    except Exception as error:
        found.append(type(error).__name__)
    return found
`,
    escaped: (outcome) => leaks(outcome) || JSON.stringify(outcome).includes('wrote '),
  },
  'read the server environment': {
    node: () => 'export async function handler() { return { env: process.env, keys: Object.keys(process.env) }; }',
    python: () => 'import os\ndef handler(event, context):\n    return dict(os.environ)\n',
    escaped: (outcome) => JSON.stringify(outcome).includes(sentinel) || /DYNAMODB_ENDPOINT|ADMIN_API_KEY|AWS_/.test(outcome.outputJson),
  },
  'list, signal and renice the platform processes': {
    node: () => `export async function handler(event) {
      const fs = require('fs'); const os = require('os'); const found = [];
      try { found.push(fs.readdirSync('/proc').filter((entry) => /^\\d+$/.test(entry)).map((pid) => fs.readFileSync('/proc/' + pid + '/cmdline', 'utf8'))); } catch (error) { found.push(error.code); }
      for (const attempt of [() => os.setPriority(event.data.serverPid, 19), () => process.kill(event.data.serverPid, 'SIGSTOP'), () => process.kill(-1, 'SIGKILL'), () => os.setPriority(1, 19)]) {
        try { attempt(); found.push('done'); } catch (error) { found.push(error.code); }
      }
      return found;
    }`,
    python: () => `import os, signal
def handler(event, context):
    found = []
    try:
        found.append([open('/proc/%s/cmdline' % pid).read() for pid in os.listdir('/proc') if pid.isdigit()])
    except Exception as error:
        found.append(type(error).__name__)
    for attempt in (lambda: os.setpriority(os.PRIO_PROCESS, event['data']['serverPid'], 19), lambda: os.kill(event['data']['serverPid'], signal.SIGSTOP), lambda: os.kill(-1, signal.SIGKILL), lambda: os.setpriority(os.PRIO_USER, 0, 19)):
        try:
            attempt()
            found.append('done')
        except Exception as error:
            found.append(type(error).__name__)
    return found
`,
    escaped: (outcome) => outcome.outputJson.includes('vitest') || getPriority(process.pid) !== 0,
  },
  'call open and socket through native code': {
    node: () =>
      "export async function handler() { try { return process.dlopen({ exports: {} }, '/usr/lib/x86_64-linux-gnu/libc.so.6'); } catch (error) { return error.code; } }",
    python: () => `import ctypes
def handler(event, context):
    libc = ctypes.CDLL(None)
    fd = libc.open(${JSON.stringify(target.devFile)}.encode(), 0)
    buffer = ctypes.create_string_buffer(200)
    libc.read(fd, buffer, 200)
    return [fd, buffer.value.decode(errors='replace'), libc.socket(2, 2, 0)]
`,
    escaped: (outcome) => leaks(outcome) || (outcome.status === 'success' && !/ERR_|null/.test(outcome.outputJson)),
  },
};

describe('sandbox attacks', () => {
  for (const [name, attack] of Object.entries(attacks)) {
    for (const runtime of ['nodejs18', 'python3.11'] as const) {
      it(`${runtime}: ${name}`, async () => {
        // Prepare
        const before = snapshot();
        // Act
        const outcome = await run(runtime, runtime === 'nodejs18' ? attack.node() : attack.python());
        // Assess
        const escaped = tally.record(`${runtime}: ${name}`, attack.escaped(outcome) || JSON.stringify(snapshot()) !== JSON.stringify(before));
        expect(escaped, JSON.stringify(outcome).slice(0, 2000)).toBe(false);
      });
    }
  }

  for (const runtime of ['nodejs18', 'python3.11'] as const) {
    it(`${runtime}: forged result frames on every descriptor 3..64 do not complete the run, and cost stays positive`, async () => {
      // Prepare
      const forged = [
        JSON.stringify({ type: 'result', id: 'guess', status: 'success', output: '"forged"', logs: [], duration: -1e12, memoryUsed: -1e6 }),
        'not json {',
        JSON.stringify({ type: 'ready' }),
      ];
      const code =
        runtime === 'nodejs18'
          ? `export async function handler() { const fs = require('fs'); for (let fd = 3; fd <= 64; fd++) for (const line of ${JSON.stringify(forged)}) { try { fs.writeSync(fd, line + '\\n'); } catch {} } await new Promise((r) => setTimeout(r, 200)); return 'genuine'; }`
          : `import os, time\ndef handler(event, context):\n    for fd in range(3, 65):\n        for line in ${JSON.stringify(forged)}:\n            try:\n                os.write(fd, (line + '\\n').encode())\n            except OSError:\n                pass\n    time.sleep(0.2)\n    return 'genuine'\n`;
      // Act
      const outcome = await run(runtime, code);
      // Assess
      const escaped = tally.record(
        `${runtime}: forged frames`,
        outcome.outputJson === '"forged"' || outcome.duration < 0 || outcome.memoryUsed < 0 || computeCostUsd(outcome.duration, 128) < 0,
      );
      expect(escaped, JSON.stringify(outcome)).toBe(false);
      expect(outcome.outputJson === '"genuine"' || outcome.error?.code === 'SCRIPT_CRASHED').toBe(true);
    });

    it(`${runtime}: TCP and UDP to the platform's loopback and to the machine's own address reach nothing`, async () => {
      // Prepare
      let received = 0;
      const tcp = createServer((socket) => {
        received += 1;
        socket.end('secret');
      });
      await new Promise<void>((listening) => tcp.listen(0, '0.0.0.0', listening));
      const udp = createSocket('udp4').on('message', () => (received += 1));
      await new Promise<void>((bound) => udp.bind(0, '0.0.0.0', bound));
      const hosts = [
        '127.0.0.1',
        ...Object.values(networkInterfaces())
          .flatMap((entries) => entries ?? [])
          .filter((entry) => entry.family === 'IPv4' && !entry.internal)
          .map((entry) => entry.address),
      ];
      const ports = { tcp: (tcp.address() as { port: number }).port, udp: udp.address().port };
      const code =
        runtime === 'nodejs18'
          ? `export async function handler() { const net = require('net'); const dgram = require('dgram'); const found = [];
            for (const host of ${JSON.stringify(hosts)}) {
              found.push(await new Promise((resolve) => net.connect(${ports.tcp}, host).on('connect', () => resolve('connected')).on('error', (error) => resolve(error.code))));
              found.push(await new Promise((resolve) => { try { const s = dgram.createSocket('udp4'); s.send('x', ${ports.udp}, host, (error) => { s.close(); resolve(error ? error.code : 'sent'); }); } catch (error) { resolve(error.code); } }));
            }
            return found; }`
          : `import socket\ndef handler(event, context):\n    found = []\n    for host in ${JSON.stringify(hosts)}:\n        try:\n            socket.create_connection((host, ${ports.tcp}), timeout=2)\n            found.append('connected')\n        except Exception as error:\n            found.append(type(error).__name__)\n        try:\n            socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', (host, ${ports.udp}))\n            found.append('sent')\n        except Exception as error:\n            found.append(type(error).__name__)\n    return found\n`;
      // Act
      const outcome = await run(runtime, code);
      tcp.close();
      udp.close();
      // Assess: a datagram that left would have arrived by now on loopback; the TCP attempts finished before the run did.
      // A datagram "sent" inside the sandbox's own network namespace goes to its private loopback, not the machine's.
      const escaped = tally.record(`${runtime}: network egress`, received > 0 || outcome.outputJson.includes('connected'));
      expect(escaped, outcome.outputJson).toBe(false);
    });
  }
});

describe('sandbox attacks: exhaustion', () => {
  const hogs: Array<[string, RuntimeLabel, string]> = [
    ['memory', 'nodejs18', 'export async function handler() { const hold = []; for (;;) hold.push(Buffer.alloc(64 * 1024 * 1024, 1)); }'],
    ['memory', 'python3.11', 'def handler(event, context):\n    hold = []\n    while True:\n        hold.append(bytearray(64 * 1024 * 1024))\n'],
    [
      'fork bomb',
      'nodejs18',
      "export async function handler() { const cp = require('child_process'); for (;;) cp.spawn(process.execPath, ['-e', 'setInterval(() => 0, 1000)']); }",
    ],
    ['fork bomb', 'python3.11', 'import os\ndef handler(event, context):\n    while True:\n        os.fork()\n'],
    [
      'output flood',
      'nodejs18',
      "export async function handler() { const fs = require('fs'); const chunk = 'x'.repeat(1 << 20); for (let i = 0; i < 64; i++) { console.log(chunk); try { fs.writeSync(1, chunk); fs.writeSync(2, chunk); } catch {} } return 'flooded'; }",
    ],
    [
      'output flood',
      'python3.11',
      "import os\ndef handler(event, context):\n    chunk = 'x' * (1 << 20)\n    for _ in range(64):\n        print(chunk)\n        os.write(1, chunk.encode())\n        os.write(2, chunk.encode())\n    return 'flooded'\n",
    ],
  ];
  for (const [what, runtime, code] of hogs) {
    it(`${runtime}: a ${what} ends in a failed run while a benign script next to it keeps working`, async () => {
      // Prepare
      const benign = await attackRequest(
        runtime,
        runtime === 'nodejs18'
          ? 'export async function handler(event) { return event.data.n * 2; }'
          : "def handler(event, context):\n    return event['data']['n'] * 2\n",
      );
      // Act
      const hostile = run(runtime, code);
      const answers = [];
      for (let n = 1; n <= 3; n++) answers.push((await pool.invoke({ ...benign, event: { ...benign.event, data: { n } } })).outputJson);
      const outcome = await hostile;
      // Assess
      const escaped = tally.record(`${runtime}: ${what}`, outcome.status === 'success' && outcome.outputJson !== '"flooded"');
      expect(escaped, JSON.stringify(outcome).slice(0, 500)).toBe(false);
      expect(outcome.logs.join('\n').length).toBeLessThanOrEqual(1024 * 1024 + 64 * 1024);
      expect(answers).toEqual(['2', '4', '6']);
    });
  }
});
