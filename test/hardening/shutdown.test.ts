// Attack: flood a real `npm start` with work (long script runs past the synchronous bound, builds running and queued
// behind them, events), then SIGTERM it. It must exit by itself, cleanly, before a 10 s kill timer fires, and leave
// no build process behind (builds run in sessions of their own, which outlive their parent unless killed).
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../bin/local.js';
import { printAttackSummary } from '../support/attack-summary.js';
import { type LocalStart, startLocal, waitFor } from '../support/local-start.js';
import { runningWith } from '../support/processes.js';
import { givenRepo, manifest } from '../support/templates.js';

printAttackSummary('shutdown after a flood (npm start exits within 10 s of SIGTERM)');

const started: LocalStart[] = [];
afterAll(async () => {
  for (const start of started) if (start.child.exitCode === null) start.child.kill('SIGKILL');
});

describe('hardening: shutdown whatever is queued', () => {
  it('exits by itself within 10 s of SIGTERM after a flood of long runs, builds and events, leaving no build running', async () => {
    // Prepare
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-shutdown-'));
    const local = startLocal({
      DATA_DIR: dataDir,
      PORT: String(await freePort()),
      POWERTOOLS_LOG_LEVEL: 'ERROR',
      RUN_WAIT_SECONDS: '1',
      TEMPLATE_BUILD_WAIT_SECONDS: '1',
      TEMPLATE_FILE_REPOSITORIES: 'true',
    });
    started.push(local);
    await waitFor(() => local.output().includes('Platform running'), 'the start');
    const dev = JSON.parse(readFileSync(join(dataDir, 'dev.json'), 'utf8')) as { baseUrl: string; apiKey: string };
    const post = async (path: string, body: unknown) => {
      const answer = await fetch(`${dev.baseUrl}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': dev.apiKey },
        body: JSON.stringify(body),
      });
      return { status: answer.status, body: (await answer.json()) as { data: any } };
    };
    const script = await post('/api/sdk/v1/scripts/createScript', {
      name: 'long-sleeper',
      config: { timeout: 300 },
      code: 'export async function handler() { await new Promise((resolve) => setTimeout(resolve, 250_000)); return 1; }',
    });
    expect(script.status, JSON.stringify(script.body)).toBe(200);
    await post('/api/sdk/v1/scripts/deployScript', { scriptId: script.body.data.id });
    const marker = `303.${Date.now()}${process.pid}`;
    const repo = givenRepo();
    const gitHash = repo.commit({ 'template.json': JSON.stringify(manifest({}, { buildCommand: `sleep ${marker}` })) });
    const templates = await Promise.all(
      [0, 1, 2].map(() =>
        post('/api/sdk/v1/templates', {
          name: 'Slow site',
          description: 'Builds for minutes',
          category: 'landing',
          tags: ['site'],
          repository: repo.url,
          gitHash,
        }),
      ),
    );
    // Act: runs that go on in the background, a build running and two queued behind it, a burst of events
    const runs = await Promise.all(Array.from({ length: 12 }, () => post('/api/sdk/v1/scripts/executeScript', { scriptId: script.body.data.id, data: {} })));
    await Promise.all(templates.map((template) => post(`/api/sdk/v1/templates/${template.body.data.id}/build`, {})));
    await Promise.all(Array.from({ length: 100 }, (_, index) => post('/api/sdk/v1/events', { type: 'flood.tick', data: { index } })));
    await waitFor(() => runningWith(['sleep', marker]).length === 1, 'the first build to run');
    const killTimer = { fired: false };
    local.child.kill('SIGTERM');
    const timer = setTimeout(() => {
      killTimer.fired = true;
      local.child.kill('SIGKILL');
    }, 10_000);
    const code = await local.exited;
    clearTimeout(timer);
    // Assess
    expect(runs.filter((run) => run.status === 202).length).toBeGreaterThan(0);
    expect(killTimer.fired).toBe(false);
    expect(code).toBe(0);
    await vi.waitFor(() => expect(runningWith(['sleep', marker])).toEqual([]), { timeout: 30_000 });
  }, 420_000);
});
