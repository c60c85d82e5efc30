// What `npm start` and `npm test` set up before they run (bin/ensure-tools.sh), and the start that refuses to serve a
// platform unable to run scripts: real child processes, with a PATH that lacks bubblewrap (and apt-get).
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { startPlatform } from '../../bin/local.js';
import { startLocal } from '../support/local-start.js';

const root = join(import.meta.dirname, '..', '..');
const which = (tool: string) =>
  process.env
    .PATH!.split(':')
    .map((dir) => join(dir, tool))
    .find((path) => existsSync(path));

/** A PATH directory holding the given tools of this machine and nothing else; readable by the unprivileged uid. */
function pathWith(tools: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'platform-path-'));
  chmodSync(dir, 0o755);
  for (const tool of tools) symlinkSync(which(tool)!, join(dir, tool));
  return dir;
}

/** What the script and npm themselves call; bubblewrap is deliberately absent. */
const baseTools = ['bash', 'sh', 'env', 'id', 'sed', 'head', 'java', 'git', 'python3', 'prlimit', 'node'];

function run(command: string, args: string[], env: Record<string, string>, asNobody = false) {
  const child = spawn(command, args, {
    cwd: root,
    env: { HOME: tmpdir(), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(asNobody && { uid: 65534, gid: 65534 }),
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise<{ code: number | null; output: string }>((resolve) => child.once('close', (code) => resolve({ code, output })));
}

describe('setup before npm start and npm test (bin/ensure-tools.sh)', () => {
  it('stops with the one command to run where bubblewrap is missing and there is no apt-get', async () => {
    // Prepare
    const path = pathWith(baseTools);
    // Act
    const { code, output } = await run(which('bash')!, ['bin/ensure-tools.sh'], { PATH: path });
    // Assess
    expect(code).toBe(1);
    expect(output).toContain('bubblewrap, the sandbox scripts run in');
    expect(output).toMatch(/run this, then start again: (sudo )?apt-get install -y bubblewrap\n/);
    expect(readdirSync(path).sort()).toEqual([...baseTools].sort()); // nothing was installed
  });

  it.runIf(process.getuid?.() === 0)('tells a user who is not root to run it with sudo, instead of installing', async () => {
    // Prepare: apt-get is there, but the caller is nobody
    const path = pathWith([...baseTools, 'apt-get', 'apt-cache']);
    // Act
    const { code, output } = await run(which('bash')!, ['bin/ensure-tools.sh'], { PATH: path }, true);
    // Assess
    expect(code).toBe(1);
    expect(output).toMatch(/run this, then start again: sudo apt-get install -y bubblewrap\b/);
    expect(output).not.toContain('installing what is missing');
  });

  it('needs no bubblewrap with SCRIPT_SANDBOX=none, the explicit opt-out', async () => {
    // Prepare
    const path = pathWith(baseTools);
    // Act
    const { code, output } = await run(which('bash')!, ['bin/ensure-tools.sh'], { PATH: path, SCRIPT_SANDBOX: 'none' });
    // Assess
    expect(output).toBe('');
    expect(code).toBe(0);
  });

  it('runs before npm start: the start stops there, with the command', async () => {
    // Prepare
    const path = pathWith([...baseTools, 'npm']);
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-nostart-'));
    // Act
    const { code, output } = await run(which('npm')!, ['start'], { PATH: path, DATA_DIR: dataDir, PORT: '0' });
    // Assess
    expect(code).not.toBe(0);
    expect(output).toContain('bash bin/ensure-tools.sh');
    expect(output).toMatch(/apt-get install -y bubblewrap/);
    expect(output).not.toContain('starting DynamoDB Local');
    expect(readdirSync(dataDir)).toEqual([]);
  });
});

describe('platform start without a script sandbox', () => {
  const saved = { PATH: process.env.PATH, SCRIPT_SANDBOX: process.env.SCRIPT_SANDBOX };
  afterEach(() => {
    process.env.PATH = saved.PATH;
    if (saved.SCRIPT_SANDBOX === undefined) delete process.env.SCRIPT_SANDBOX;
    else process.env.SCRIPT_SANDBOX = saved.SCRIPT_SANDBOX;
  });

  it('refuses to serve, with the command that installs bubblewrap, and starts nothing', async () => {
    // Prepare
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-nosandbox-'));
    // Act: bin/local.ts as npm start runs it after setup, on a machine without bwrap
    const start = startLocal({ DATA_DIR: dataDir, PORT: '0', PATH: pathWith(baseTools) });
    const code = await start.exited;
    // Assess
    expect(code).toBe(1);
    expect(start.output()).toMatch(/bubblewrap \(bwrap\) is not installed\. Run this, then start again: (sudo )?apt-get install -y bubblewrap/);
    expect(start.output()).not.toContain('Platform running');
    expect(start.output()).not.toContain('starting DynamoDB Local');
    expect(existsSync(join(dataDir, 'dev.json'))).toBe(false);
  }, 60_000);

  it('serves with SCRIPT_SANDBOX=none, the explicit opt-out', async () => {
    // Prepare
    process.env.PATH = pathWith(baseTools);
    process.env.SCRIPT_SANDBOX = 'none';
    // Act
    const platform = await startPlatform({
      port: 0,
      dataDir: mkdtempSync(join(tmpdir(), 'platform-optout-')),
      dynamoEndpoint: inject('dynamoEndpoint'),
      devAccount: false,
    });
    const health = await fetch(`${platform.baseUrl}/api/sdk/v1/me`).finally(() => platform.stop());
    // Assess
    expect(health.status).toBe(401);
  }, 60_000);
});

describe('platform start with a bad setting', () => {
  afterEach(() => {
    delete process.env.SCRIPT_MAX_WORKERS;
  });

  it('refuses to start, naming the variable and its value, and starts nothing', async () => {
    // Prepare
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-badsetting-'));
    process.env.SCRIPT_MAX_WORKERS = 'abc';
    // Act
    const start = startPlatform({ port: 0, dataDir, devAccount: false });
    // Assess: DynamoDB Local would have made its directory under dataDir
    await expect(start).rejects.toThrow('invalid configuration: SCRIPT_MAX_WORKERS="abc"');
    expect(readdirSync(dataDir)).toEqual([]);
  });
});
