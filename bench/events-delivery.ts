// The delivery half of the events bench: sustained POST /api/sdk/v1/events for the dev user, whose deployed
// script is subscribed to them, then a count: every event the platform accepted ran the script exactly once.
import { inProcessBus } from '../functions/adapters/local/event-bus.js';
import { createExecutionStore } from '../functions/scripts/runs/execution-store.js';
import { createFileBlobStore } from '../functions/adapters/local/file-blob-store.js';
import type { BarePlatform, BenchFigure, LoadTestOptions, LoadTestResult } from './support.js';

const connections = 32;
const warmUpSeconds = 2;
const durationSeconds = 8;
/** Deliveries lag behind ingestion under this load; give them this long to catch up once it stops. */
const drainTimeoutMs = 180_000;
const eventType = 'custom.bench';
const code = 'async function handler(event) { return { success: true, id: event.data.id }; }';

interface Tools {
  loadTest(options: LoadTestOptions): Promise<LoadTestResult>;
  assertAllOk(result: LoadTestResult, label: string): void;
}

async function call(platform: BarePlatform, method: string, path: string, body: unknown) {
  const response = await fetch(`${platform.baseUrl}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': platform.dev.apiKey },
    body: JSON.stringify(body),
  });
  const parsed = (await response.json()) as { success: boolean; data: Record<string, any> };
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(parsed)}`);
  return parsed.data;
}

/** A deployed script subscribed to the bench's events, with a daily limit the bench cannot reach. */
async function givenSubscribedScript(platform: BarePlatform): Promise<string> {
  const script = await call(platform, 'POST', '/api/sdk/v1/scripts', { name: 'events-bench', code, config: { maxExecutionsPerDay: 1_000_000 } });
  await call(platform, 'POST', '/api/sdk/v1/scripts/deployScript', { scriptId: script.id });
  await call(platform, 'POST', `/api/sdk/v1/scripts/${script.id}/subscriptions`, {
    eventType,
    conditions: [{ field: 'data.batch', operator: 'equals', value: 'bench' }],
  });
  return script.id as string;
}

export async function runDeliveryLoad(platform: BarePlatform, tools: Tools): Promise<BenchFigure[]> {
  const scriptId = await givenSubscribedScript(platform);
  const accepted = new Set<string>();
  const unsubscribe = inProcessBus.subscribe(async (event) => {
    if (event.type === eventType) accepted.add(event.id);
  });
  const executions = createExecutionStore(() => createFileBlobStore('script-packages'));
  const runsOf = () => executions.list({ scriptUser: `${scriptId}#${platform.dev.userId}` });
  try {
    const load = {
      url: `${platform.baseUrl}/api/sdk/v1/events`,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': platform.dev.apiKey },
      body: JSON.stringify({ type: eventType, source: 'bench', content: { text: 'load test event' }, data: { batch: 'bench' } }),
      connections,
    };
    // The same load for an event type nobody subscribes to: every event is dispatched as fast as it comes in (the trigger
    // pipeline's indexed lookups of subscriptions and event flows), none waits behind script runs.
    const unsubscribedLoad = { ...load, body: load.body.replace(eventType, 'custom.unsubscribed') };
    tools.assertAllOk(await tools.loadTest({ ...unsubscribedLoad, durationSeconds: warmUpSeconds }), 'POST /events warm-up');
    const unsubscribed = await tools.loadTest({ ...unsubscribedLoad, durationSeconds });
    tools.assertAllOk(unsubscribed, 'POST /events without subscribers');
    const started = Date.now();
    tools.assertAllOk(await tools.loadTest({ ...load, durationSeconds: warmUpSeconds }), 'POST /events warm-up');
    const measured = await tools.loadTest({ ...load, durationSeconds });
    tools.assertAllOk(measured, 'POST /events');
    const ingestEnded = Date.now();
    console.log(
      `  ingested ${Math.round(measured.requestsPerSecond)} events/s (p99 ${measured.p99Ms.toFixed(1)} ms); ${accepted.size} accepted in all, draining deliveries`,
    );

    let runs = await runsOf();
    let lastProgress = Date.now();
    while (runs.length < accepted.size && Date.now() - lastProgress < drainTimeoutMs) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      const next = await runsOf();
      if (next.length > runs.length) lastProgress = Date.now();
      runs = next;
    }
    const deliveredAt = Math.max(...runs.map((run) => Date.parse(run.finishedAt ?? run.createdAt)));
    const ids = runs.map((run) => (run.output as { id?: string } | null)?.id);
    const distinct = new Set(ids.filter((id): id is string => typeof id === 'string' && accepted.has(id)));
    const lost = accepted.size - distinct.size;
    const twice = ids.length - new Set(ids).size;
    const failed = runs.filter((run) => run.status !== 'success').length;
    console.log(
      `  ${accepted.size} events accepted, ${runs.length} runs, ${distinct.size} distinct events run, ${lost} lost, ${twice} run twice, ${failed} failed runs`,
    );
    // Delivery speed is the script runtime's (one run of a warm script, its limits and its record), shown for context.
    const deliverySeconds = (deliveredAt - started) / 1000;
    console.log(
      `  delivered ${Math.round(accepted.size / deliverySeconds)} runs/s; the last ${((deliveredAt - ingestEnded) / 1000).toFixed(1)} s after ingestion stopped`,
    );
    return [
      { name: 'events.ingest_requests_per_second', value: Math.round(measured.requestsPerSecond), unit: 'events/s', target: 1000, better: 'higher' },
      {
        name: 'events.ingest_unsubscribed_requests_per_second',
        value: Math.round(unsubscribed.requestsPerSecond),
        unit: 'events/s',
        target: 1000,
        better: 'higher',
      },
      { name: 'events.ingest_p99_ms', value: Math.round(measured.p99Ms * 100) / 100, unit: 'ms', target: 100, better: 'lower' },
      { name: 'events.lost', value: lost, unit: 'events', target: 0, better: 'lower' },
      { name: 'events.run_twice', value: twice, unit: 'runs', target: 0, better: 'lower' },
      { name: 'events.failed_runs', value: failed, unit: 'runs', target: 0, better: 'lower' },
    ];
  } finally {
    unsubscribe();
  }
}
