// A batch window survives `kill -9` of a real `npm start`: the restart on the same data directory finds the window
// (DynamoDB Local on disk) and its one-shot (persisted), and the batch runs once with every trigger it gathered.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../bin/local.js';
import { type LocalStart, devApi, startLocal, waitFor } from '../support/local-start.js';

const started: LocalStart[] = [];
afterAll(async () => {
  for (const start of started) if (start.child.exitCode === null) start.child.kill('SIGTERM');
  await Promise.all(started.map((start) => start.exited));
});

function start(env: Record<string, string>): LocalStart {
  const local = startLocal(env);
  started.push(local);
  return local;
}

describe('flow control: kill -9 of npm start while a batch gathers', () => {
  it('runs the batch once after the restart, with every trigger in order', async () => {
    // Prepare
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-gather-kill-'));
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'ERROR' };
    const first = start(env);
    await waitFor(() => first.output().includes('Platform running'), 'the first start');
    const call = devApi(dataDir);
    const script = await call('/api/sdk/v1/scripts', {
      name: 'gathers-across-kill',
      code: 'export async function handler(event) { return { batch: event.batch }; }',
      config: { batch: { maxSize: 100, timeout: { seconds: 5 } } },
    });
    await call('/api/sdk/v1/scripts/deployScript', { scriptId: script.body.data.id });
    const answers = [];
    for (let n = 0; n < 3; n++) answers.push(await call('/api/sdk/v1/scripts/executeScript', { scriptId: script.body.data.id, data: { n } }));
    const { executionId } = answers[0]!.body.data;
    expect(answers.map((answer) => answer.body.data.executionId)).toEqual([executionId, executionId, executionId]);
    // Act
    first.child.kill('SIGKILL');
    await first.exited;
    const second = start(env);
    await waitFor(() => second.output().includes('Platform running'), 'the restart');
    // Assess
    const run = await vi.waitFor(
      async () => {
        const read = await call(`/api/sdk/v1/executions/${executionId}`);
        expect(read.body.data.status).toBe('completed');
        return read.body.data;
      },
      { timeout: 90_000, interval: 500 },
    );
    expect(run.output.batch).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }]);
    const runs = await call(`/api/sdk/v1/executions?scriptId=${script.body.data.id}`);
    expect(runs.body.data.executions).toHaveLength(1);
  }, 240_000);
});
