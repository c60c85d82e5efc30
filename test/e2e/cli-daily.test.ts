// The CLI in text mode, as a person reads it: every warning, a failed run's code and message, a waiting run's wait
// with the exact command that continues it (which then continues it), scripts named by name, and refusals that say
// what is there. A long suite: each command is a child process that loads the CLI's sources.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { durableRuns } from '../support/durable-runs.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
});
afterAll(() => api.stop());

/** Child processes that load the CLI take seconds each on a busy machine. */
const cliTimeout = 180_000;

describe('daily use: the CLI in text mode says what matters', () => {
  const cli = (...args: string[]) =>
    runCli(args, { PLATFORM_BASE_URL: api.baseUrl, PLATFORM_API_KEY: owner.apiKey, PLATFORM_CONFIG: join(mkdtempSync(join(tmpdir(), 'cli-')), 'c.json') });

  it(
    "prints a flow's warnings and a failed run's code and message, and takes a script's name",
    async () => {
      // Prepare
      const named = await givenDeployed(api, owner, { name: `report-${Date.now().toString(36)}` });
      const name = (await api.as(owner.apiKey).get(`/api/sdk/v1/scripts/${named.id}`)).body.data.name;
      // Act
      const llm = await cli('flows', 'create', '--title', 'Triage', '--description', 'd', '--event-type', 'chatapp.message', '--prompt', 'triage it');
      const flowId = /created flow (flw_\S+)/.exec(llm.stdout)?.[1];
      const ran = await cli('flows', 'run', flowId!);
      const timed = await cli('flows', 'create', '--title', 'Report', '--description', 'd', '--schedule', '0 9 * * MON-FRI', '--script', name);
      // Assess
      expect(llm.code).toBe(0);
      expect(llm.stdout).toContain('warning: no language model is configured on this platform');
      expect(ran.code).toBe(3);
      expect(ran.stdout).toContain('LLM_NOT_CONFIGURED: no language model is configured');
      expect(timed.code).toBe(0);
      expect(timed.stdout).toMatch(/created flow flw_\S+ \(active\): Report/);
    },
    cliTimeout,
  );

  it(
    'prints what a waiting run waits for and the command that continues it; that command continues it',
    async () => {
      // Prepare
      const waiter = await givenDeployed(api, owner, {
        code: "export async function handler(event, context) {\n  await context.step('fetch', async () => 1);\n  return context.waitForCallback('hook', async () => {});\n}",
        config: { durable: true },
      });
      // Act
      const started = await cli('scripts', 'run', waiter.id);
      const command = /continue it: platform (runs callback \S+ \S+) --result/.exec(started.stdout)?.[1];
      const continued = await cli(...command!.split(' '), '--result', '{"ok":true}');
      const executionId = command!.split(' ')[2]!;
      await durableRuns(api, owner).waitForStatus(executionId, 'completed');
      const again = await cli(...command!.split(' '), '--result', '{"ok":true}');
      const rerun = await cli('runs', 'rerun', executionId, '--from-step', 'nope');
      // Assess
      expect(started.code).toBe(0);
      expect(started.stdout).toMatch(/waiting in [\d.]+ ms\nwaits for callback hook \(id \S+\)/);
      expect(continued.code).toBe(0);
      expect(again.code).toBe(1);
      expect(again.stderr).toMatch(/CONFLICT \(409\): callback \S+ was already completed at \d{4}-/);
      expect(rerun.code).toBe(1);
      expect(rerun.stderr).toContain('has no step named nope; its steps: fetch, hook');
    },
    cliTimeout,
  );
});
