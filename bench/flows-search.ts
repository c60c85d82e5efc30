// searchFlows over one user's 1,000 flows (the per-user maximum), both variants over HTTP. The flows are made by
// the flow service itself with a clock that moves a day every hundred flows, as the daily creation limit wants.
import { createExecutionStore } from '../functions/flows/execution-store.js';
import { createFlowService } from '../functions/flows/service.js';
import { createFlowStore } from '../functions/flows/store.js';
import { flowLongRuns, flowScriptRunner } from '../functions/app/flows/wiring.js';
import { dynamoCatalogStamps } from '../functions/platform/catalog-stamps.js';
import { type BarePlatform, type BenchFigure, assertAllOk, loadTest } from './support.js';

const flowCount = 1000;
const words = ['invoice', 'digest', 'alert', 'report', 'follow-up', 'standup', 'billing', 'calendar', 'support', 'crypto'];
const round2 = (value: number) => Math.round(value * 100) / 100;

async function givenThousandFlows(platform: BarePlatform): Promise<void> {
  let now = Date.parse('2026-01-01T08:00:00.000Z');
  const clock = { now: () => now, nowIso: () => new Date(now).toISOString() };
  const noSchedules = { put: async () => undefined, putOnce: async () => undefined, remove: async () => undefined };
  const service = createFlowService({
    flows: createFlowStore(),
    executions: createExecutionStore(),
    scripts: flowScriptRunner(),
    scheduler: noSchedules,
    longRuns: flowLongRuns(),
    clock,
    llmConfigured: () => true,
    catalog: dynamoCatalogStamps,
  });
  const caller = { userId: platform.dev.userId, keyId: 'bench', scopes: ['*'] };
  for (let index = 0; index < flowCount; index++) {
    if (index % 100 === 0) now += 86_400_000;
    now += 1000;
    const word = words[index % words.length]!;
    const flow = await service.createEventFlow(caller, {
      title: `${word} flow ${index}`,
      description: `Handles ${word} messages for team ${index % 7}`,
      eventType: index % 2 ? 'chatapp.message' : 'mailapp.email_received',
      conditions: { operator: 'AND', conditions: [{ field: index % 2 ? 'text' : 'subject', operator: 'contains', value: word }] },
      prompt: `When a ${word} message arrives, summarise it and file it. `.repeat(5),
      recommendedTools: ['mailer.send'],
      scope: index % 3 ? 'user' : 'team',
      executionType: 'llm',
    });
    if (index % 4 === 0) await service.pause(caller, flow.id);
  }
}

export async function measureSearch(platform: BarePlatform): Promise<BenchFigure[]> {
  await givenThousandFlows(platform);
  const request = (body: unknown) => ({
    url: `${platform.baseUrl}/api/sdk/v1/flows/searchFlows`,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': platform.dev.apiKey },
    body: JSON.stringify(body),
    connections: 1,
  });
  const variants = [
    ['a', { detail: 'summary', status: 'active', limit: 20 }],
    ['b', { query: 'invoice', trigger: { type: 'event' }, limit: 50 }],
  ] as const;
  const figures: BenchFigure[] = [];
  for (const [variant, body] of variants) {
    await loadTest({ ...request(body), durationSeconds: 2 });
    const measured = await loadTest({ ...request(body), durationSeconds: 6 });
    assertAllOk(measured, `searchFlows variant ${variant}`);
    console.log(
      `  searchFlows ${variant.toUpperCase()} over ${flowCount} flows: p50 ${measured.p50Ms.toFixed(2)} ms, p99 ${measured.p99Ms.toFixed(2)} ms, ${Math.round(measured.requestsPerSecond)} requests/s`,
    );
    figures.push(
      { name: `flows.search_${variant}_p50_ms`, value: round2(measured.p50Ms), unit: 'ms', target: 20, better: 'lower' },
      { name: `flows.search_${variant}_p99_ms`, value: round2(measured.p99Ms), unit: 'ms', target: 50, better: 'lower' },
    );
  }
  return figures;
}
