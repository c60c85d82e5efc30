// A durable run survives `kill -9` of a real `npm start` while it waits: the restart on the same data directory
// finds its wake-up (persisted one-shot) and journal (DynamoDB Local on disk), and the run finishes without
// repeating its first step. Side effects are calls to a local upstream, counted there.
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../bin/local.js';
import { type LocalStart, startLocal, waitFor } from '../support/local-start.js';
import { type Upstream, resourceInput, startUpstream } from '../support/resources.js';

let upstream: Upstream;
const started: LocalStart[] = [];

beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(async () => {
  for (const start of started) if (start.child.exitCode === null) start.child.kill('SIGTERM');
  await Promise.all(started.map((start) => start.exited));
  await upstream.close();
});

const callsWith = (marker: string) => upstream.received.filter((request) => request.url.includes(marker)).length;

function start(env: Record<string, string>): LocalStart {
  const local = startLocal(env);
  started.push(local);
  return local;
}

describe('durable runs: kill -9 of npm start while a run waits', () => {
  it('finishes the run after a restart on the same data, with no step repeated', async () => {
    // Prepare
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-durable-kill-'));
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'ERROR' };
    const first = start(env);
    await waitFor(() => first.output().includes('Platform running'), 'the first start');
    const dev = JSON.parse(readFileSync(join(dataDir, 'dev.json'), 'utf8')) as { baseUrl: string; apiKey: string };
    const call = async (path: string, body?: unknown) => {
      const answer = await fetch(`${dev.baseUrl}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': dev.apiKey },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: answer.status, body: (await answer.json()) as { data: any } };
    };
    const resourceName = `kill-${Date.now().toString(36)}`;
    const resource = await call('/api/sdk/v1/resources', resourceInput({ name: resourceName }, { baseUrl: upstream.baseUrl }));
    await call(`/api/sdk/v1/resources/${resource.body.data.id}/publish`, {});
    await call(`/api/sdk/v1/resources/${resource.body.data.id}/install`, {});
    const script = await call('/api/sdk/v1/scripts', {
      name: 'survives-kill',
      description: 'step, wait, step',
      config: { durable: true, allowedResources: [resourceName] },
      code: `export async function handler(event, context) {
  const first = await context.step('first', async () => (await resources['${resourceName}'].getForecast({ city: event.data.marker + '-first' })).path);
  await context.wait('pause', { seconds: 3 });
  const second = await context.step('second', async () => (await resources['${resourceName}'].getForecast({ city: event.data.marker + '-second' })).path);
  return { first, second };
}`,
    });
    await call('/api/sdk/v1/scripts/deployScript', { scriptId: script.body.data.id });
    const marker = `k${Date.now().toString(36)}`;
    const run = await call('/api/sdk/v1/scripts/executeScript', { scriptId: script.body.data.id, data: { marker } });
    expect(run.body.data.status).toBe('waiting');
    const { executionId } = run.body.data;
    // Act
    first.child.kill('SIGKILL');
    await first.exited;
    const second = start(env);
    await waitFor(() => second.output().includes('Platform running'), 'the restart');
    const execution = await vi.waitFor(
      async () => {
        const read = (await call('/api/sdk/v1/scripts/getExecution', { executionId })).body.data;
        expect(read.status).toBe('completed');
        return read;
      },
      { timeout: 60_000, interval: 200 },
    );
    // Assess
    expect(callsWith(`${marker}-first`)).toBe(1);
    expect(callsWith(`${marker}-second`)).toBe(1);
    expect(execution.steps.map((step: { name: string; status: string }) => `${step.name}:${step.status}`)).toEqual([
      'first:succeeded',
      'pause:succeeded',
      'second:succeeded',
    ]);
  }, 240_000);
});
