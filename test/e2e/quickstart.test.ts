// The README's quickstart, run as written: its bash blocks are read from README.md (so the two cannot drift) and run
// in order, in one shell, against a fresh local platform whose dev.json sits in DATA_DIR.
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';

const root = join(import.meta.dirname, '..', '..');
let api: TestApi;
let dataDir: string;
let user: TestUser;

/** The bash blocks between the quickstart markers of README.md. */
function quickstartScript(readme: string): string {
  const section = /<!-- quickstart:start -->([\s\S]*?)<!-- quickstart:end -->/.exec(readme)?.[1];
  if (!section) throw new Error('README.md has no quickstart section');
  return [...section.matchAll(/```bash\n([\s\S]*?)```/g)].map((block) => block[1]).join('\n');
}

beforeAll(async () => {
  api = await startTestPlatform();
  user = await api.givenUser();
  dataDir = mkdtempSync(join(root, 'node_modules', '.quickstart-'));
  writeFileSync(join(dataDir, 'dev.json'), JSON.stringify({ baseUrl: api.baseUrl, adminKey: api.platform.adminKey, userId: user.userId, apiKey: user.apiKey }));
});
afterAll(async () => {
  rmSync(dataDir, { recursive: true, force: true });
  await api.stop();
});

describe('README quickstart', () => {
  it('runs every command of the quickstart without an error', async () => {
    // Prepare
    const script = quickstartScript(readFileSync(join(root, 'README.md'), 'utf8'));
    const scriptFile = join(mkdtempSync(join(tmpdir(), 'quickstart-')), 'quickstart.sh');
    writeFileSync(scriptFile, `set -euo pipefail\n${script}`);
    // Act
    const result = await new Promise<{ code: number | null; output: string }>((resolve) => {
      const child = spawn('bash', [scriptFile], {
        cwd: root,
        // An absolute DATA_DIR, as a user who exports one has: the quickstart reads dev.json from wherever it is.
        env: { ...process.env, DATA_DIR: dataDir },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.once('exit', (code) => resolve({ code, output }));
    });
    // Assess
    expect(result.output).not.toMatch(/^error:/m);
    expect(result.code, result.output).toBe(0);
    expect(result.output).toMatch(/resource \S+ published and installed/);
    expect(result.output).toContain('"greeting": "hello Ada"');
    expect(result.output).toMatch(/published chatapp\.message as evt_/);
    expect(result.output).toMatch(/paused flow \S+: paused/);
    expect(result.output).toMatch(/harbour\.txt: The harbour master opens the northern lock/);
    expect(result.output).toMatch(/paid 10000 atomic USDC in transaction \w+/);
    // It leaves nothing running that would call the weather API it stopped: no flow, no subscription.
    expect(result.output).toMatch(/removed subscription \S+ and flow \S+; the weather API is stopped/);
    const flows = await api.as(user.apiKey).post('/api/sdk/v1/flows/searchFlows', {});
    expect(flows.body.data.count).toBe(0);
    const scripts = await api.as(user.apiKey).get('/api/sdk/v1/scripts?limit=100');
    const subscriptions = await Promise.all(
      scripts.body.data.scripts.map((script: { id: string }) => api.as(user.apiKey).get(`/api/sdk/v1/scripts/${script.id}/subscriptions`)),
    );
    expect(scripts.body.data.scripts.length).toBeGreaterThan(0);
    // The second push of the same folder made no version 2.
    const hello = scripts.body.data.scripts.find((script: { name: string }) => script.name === 'hello-resources');
    const versions = await api.as(user.apiKey).get(`/api/sdk/v1/scripts/${hello.id}/versions`);
    expect(versions.body.data.versions).toHaveLength(1);
    expect(subscriptions.map((answer) => answer.body.data.subscriptions)).toEqual(scripts.body.data.scripts.map(() => []));
  }, 600_000);
});
