// `platform logs <executionId> --follow` over the run's event stream: it prints each line as it comes, through a durable
// wait, and exits with the run's exit code when the run ends (3 for a failed run, as the CLI's exit codes say).
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { type TestApi, type TestUser, startTestPlatform } from '../support/platform.js';
import { givenDeployed, sdk } from '../support/scripts.js';

let api: TestApi;
let owner: TestUser;

beforeAll(async () => {
  api = await startTestPlatform();
  owner = await api.givenUser();
});
afterAll(async () => {
  await api.stop();
});

describe('CLI: logs --follow', () => {
  it('prints the lines of a run through its wait and exits 3 when the run fails', async () => {
    // Prepare
    const script = await givenDeployed(api, owner, {
      code: `export async function handler(event, context) {
  await context.step('charge', async () => { console.log('charging o-1'); return 1; });
  await context.wait('pause', { seconds: 1 });
  console.log('refunding o-1');
  const error = new Error('the card was declined');
  error.code = 'CARD_DECLINED';
  throw error;
}`,
      config: { durable: true },
    });
    const started = await api.as(owner.apiKey).post(sdk('executeScript'), { scriptId: script.id, data: {} });
    const env = {
      PLATFORM_BASE_URL: api.baseUrl,
      PLATFORM_API_KEY: owner.apiKey,
      PLATFORM_CONFIG: join(mkdtempSync(join(tmpdir(), 'cli-config-')), 'config.json'),
    };
    // Act
    const followed = await runCli(['logs', started.body.data.executionId, '--follow'], env);
    // Assess
    expect(followed.code, followed.stderr).toBe(3);
    const lines = followed.stdout.trim().split('\n');
    expect(lines.slice(0, 2)).toEqual(['[#1 charge] charging o-1', '[#2] refunding o-1']);
    expect(lines.at(-1)).toMatch(/^=== exe_\S+ failed in [\d.]+ ms: \S+: /);
  });
});
