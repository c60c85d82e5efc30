// A durable run survives `kill -9` of a real `npm start` while it waits: the restart on the same data directory
// finds its wake-up (persisted one-shot) and journal (DynamoDB Local on disk), and the run finishes without
// repeating its first step. Killed mid-step, it is continued by its invocation's watchdog once the lease lapses:
// the step that was cut off runs again, the finished one does not. Side effects are calls to a local upstream, counted there.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../bin/local.js';
import { localStarts, startTimeoutMs, waitFor } from '../support/local-start.js';
import { type Upstream, json, startUpstream } from '../support/resources.js';

let upstream: Upstream;
const { start, startedWithResource, stopAll } = localStarts(() => upstream);

beforeAll(async () => {
  upstream = await startUpstream();
});
afterAll(async () => {
  await stopAll();
  await upstream.close();
});

const callsWith = (marker: string) => upstream.received.filter((request) => request.url.includes(marker)).length;

describe('durable runs: kill -9 of npm start while a run waits', () => {
  it('finishes the run after a restart on the same data, with no step repeated', async () => {
    // Prepare
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-durable-kill-'));
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'ERROR' };
    const { first, call, resourceName } = await startedWithResource(env, dataDir, 'kill');
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
    await waitFor(() => second.output().includes('Platform running'), 'the restart', startTimeoutMs, second.output);
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
  }, 900_000);
});

describe('durable runs: kill -9 of npm start in the middle of a step', () => {
  it("continues the run through its invocation's watchdog: the cut-off step runs again, the finished one does not", async () => {
    // Prepare
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-durable-midstep-'));
    // The execute answers 202 after a second, so the test holds no request while the step blocks.
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'ERROR', RUN_WAIT_SECONDS: '1' };
    const { first, call, resourceName } = await startedWithResource(env, dataDir, 'midstep');
    const script = await call('/api/sdk/v1/scripts', {
      name: 'survives-midstep-kill',
      description: 'step, then a step cut off by kill -9',
      // A short timeout: the lease (timeout plus the run grace) lapses soon after the kill.
      config: { durable: true, allowedResources: [resourceName], timeout: 5 },
      code: `export async function handler(event, context) {
  const first = await context.step('first', async () => (await resources['${resourceName}'].getForecast({ city: event.data.marker + '-first' })).path);
  const second = await context.step('second', async () => (await resources['${resourceName}'].getForecast({ city: event.data.marker + '-second' })).path);
  return { first, second };
}`,
    });
    await call('/api/sdk/v1/scripts/deployScript', { scriptId: script.body.data.id });
    const marker = `m${Date.now().toString(36)}`;
    // The first call of the second step never gets an answer; any later one does.
    upstream.respond((request, response) => {
      if (request.url.includes(`${marker}-second`) && callsWith(`${marker}-second`) === 1) return;
      json(response, 200, { ok: true, path: request.url });
    });
    const run = await call('/api/sdk/v1/scripts/executeScript', { scriptId: script.body.data.id, data: { marker } });
    expect(run.status).toBe(202);
    const { executionId } = run.body.data;
    await waitFor(() => callsWith(`${marker}-second`) === 1, 'the second step to be under way');
    // Act
    first.child.kill('SIGKILL');
    await first.exited;
    const second = start(env);
    await waitFor(() => second.output().includes('Platform running'), 'the restart', startTimeoutMs, second.output);
    // Every read until the end: a run the watchdog will continue never reads as timed out.
    const seen = new Set<string>();
    const execution = await vi.waitFor(
      async () => {
        const read = (await call('/api/sdk/v1/scripts/getExecution', { executionId })).body.data;
        seen.add(read.status);
        expect(read.status).toBe('completed');
        return read;
      },
      { timeout: 120_000, interval: 200 },
    );
    // Assess
    expect(callsWith(`${marker}-first`)).toBe(1);
    expect(callsWith(`${marker}-second`)).toBe(2);
    expect([...seen].filter((status) => status !== 'running' && status !== 'completed')).toEqual([]);
    expect(execution.output).toEqual({ first: expect.stringContaining(`${marker}-first`), second: expect.stringContaining(`${marker}-second`) });
    expect(execution.steps.map((step: { name: string; status: string }) => `${step.name}:${step.status}`)).toEqual(['first:succeeded', 'second:succeeded']);
  }, 900_000);
});
