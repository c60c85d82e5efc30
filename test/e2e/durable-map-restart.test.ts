// A map of 100 branches survives `kill -9` of a real `npm start` in the middle of its steps: after the restart every
// branch's step ran to its end exactly once and the results are in input order. The kill also cuts off branch waits'
// timers that were firing: the restart fires them again (a one-time firing leaves the store only once delivered).
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

describe('durable runs: kill -9 of npm start in the middle of a map of 100 branches', () => {
  it("finishes the map after a restart: every branch's step ran to its end exactly once and the results are in input order", async () => {
    // Prepare
    const dataDir = mkdtempSync(join(tmpdir(), 'platform-durable-map-'));
    const env = { DATA_DIR: dataDir, PORT: String(await freePort()), POWERTOOLS_LOG_LEVEL: 'ERROR', RUN_WAIT_SECONDS: '1' };
    const { first, call, resourceName } = await startedWithResource(env, dataDir, 'map');
    const script = await call('/api/sdk/v1/scripts', {
      name: 'map-survives-kill',
      description: 'a map of 100 branches, each a step and a wait',
      // Room for 100 steps and waits in one invocation on a busy machine; the killed invocation's lease lapses after it.
      config: { durable: true, allowedResources: [resourceName], timeout: 120 },
      code: `export async function handler(event, context) {
  const items = Array.from({ length: 100 }, (_, index) => index);
  return context.map('fan', items, async (branch, item) => {
    const answered = await branch.step('call', async () => (await resources['${resourceName}'].getForecast({ city: event.data.marker + '-' + item })).ok);
    await branch.wait('pause', { seconds: 1 });
    return { item, answered };
  });
}`,
    });
    await call('/api/sdk/v1/scripts/deployScript', { scriptId: script.body.data.id });
    const marker = `p${Date.now().toString(36)}`;
    const branchOf = (url: string) => Number(decodeURIComponent(url).match(new RegExp(`${marker}-(\\d+)`))?.[1] ?? -1);
    // Steps of the first 40 branches are answered; the next ones are held, so the kill cuts them off mid-step.
    const answered: number[] = [];
    let holding = true;
    upstream.respond((request, response) => {
      const branch = branchOf(request.url);
      if (holding && branch >= 40) return;
      if (branch >= 0) answered.push(branch);
      json(response, 200, { ok: true, path: request.url });
    });
    const run = await call('/api/sdk/v1/scripts/executeScript', { scriptId: script.body.data.id, data: { marker } });
    expect(run.status).toBe(202);
    const { executionId } = run.body.data;
    await waitFor(() => upstream.received.filter((request) => branchOf(request.url) >= 40).length >= 5, 'steps of later branches to be under way', 300_000);
    // Act
    first.child.kill('SIGKILL');
    await first.exited;
    holding = false;
    const second = start(env);
    await waitFor(() => second.output().includes('Platform running'), 'the restart', startTimeoutMs, second.output);
    const execution = await vi.waitFor(
      async () => {
        const read = (await call('/api/sdk/v1/scripts/getExecution', { executionId })).body.data;
        expect({ status: read.status, error: read.error }).toEqual({ status: 'completed', error: null });
        return read;
      },
      { timeout: 480_000, interval: 500 },
    );
    // Assess
    const items = Array.from({ length: 100 }, (_, index) => index);
    expect(execution.output).toEqual(items.map((item) => ({ item, answered: true })));
    expect(items.filter((item) => answered.filter((branch) => branch === item).length !== 1)).toEqual([]);
    expect(answered.filter((branch) => branch < 40)).toHaveLength(40);
  }, 900_000);
});
