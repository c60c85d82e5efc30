// A flows world for integration tests: the production stores on DynamoDB Local, the local scheduler (recurring and
// one-time firings) on a clock the test moves, a manual execution deadline, and a script runner port fake (the HTTP tests
// run real scripts). Everything else is the production code.
import { inject } from 'vitest';
import { memoryRateLimiter } from '../../functions/adapters/local/rate-limiter.js';
import { createLocalScheduler } from '../../functions/adapters/local/scheduler.js';
import { createDeliveryStore } from '../../functions/events/delivery-store.js';
import { createEventHistoryStore } from '../../functions/events/history-store.js';
import { type TriggerPipeline, createTriggerPipeline } from '../../functions/events/trigger-pipeline.js';
import { createExecutionStore } from '../../functions/flows/execution-store.js';
import { createExecutor } from '../../functions/flows/executor.js';
import { createFlowRuns } from '../../functions/flows/flow-runs.js';
import { createFlowLongRuns } from '../../functions/flows/long-runs.js';
import type { FlowScriptRunner, LanguageModel } from '../../functions/flows/ports.js';
import { createFlowEventTarget } from '../../functions/flows/event-target.js';
import { createFlowService } from '../../functions/flows/service.js';
import { createFlowStore } from '../../functions/flows/store.js';
import { createFileBlobStore } from '../../functions/adapters/local/file-blob-store.js';
import { createRunStore } from '../../functions/scripts/runs/run-store.js';
import { dynamoCatalogStamps } from '../../functions/platform/catalog-stamps.js';
import { newId } from '../../functions/platform/ids.js';
import type { PlatformEventInput } from '../../functions/platform/ports.js';
import { recordingMetrics } from './metrics.js';

/** Call in beforeAll: the stores then talk to the run's DynamoDB Local. */
export function useDynamoLocal() {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
}

type ScriptRun = Awaited<ReturnType<FlowScriptRunner['run']>>;
export const scriptResult = (overrides: Partial<ScriptRun> = {}): ScriptRun => ({
  executionId: 'exe_script',
  status: 'success',
  noOp: false,
  output: { success: true },
  error: null,
  logs: ['ran'],
  cost: 0.0001,
  ...overrides,
});
export const scriptFailure = scriptResult({
  status: 'error',
  output: { success: false, reason: 'upstream down' },
  error: { code: 'SCRIPT_FAILURE', message: 'upstream down' },
});

export const refusalOf = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: { code: string; status: number }) => ({ code: error.code, status: error.status }),
  );

export function flowWorld(options: { script?: FlowScriptRunner['run']; model?: LanguageModel } = {}) {
  // Far in the future: results carry a TTL from this clock, and DynamoDB Local sweeps items whose TTL has passed.
  let now = Date.parse('2099-03-02T09:00:00.000Z');
  const clock = { now: () => now, nowIso: () => new Date(now).toISOString() };
  const at = (iso: string) => (now = Date.parse(iso));
  const advance = (ms: number) => (now += ms);
  const published: PlatformEventInput[] = [];
  const scriptCalls: Array<{ scriptId: string; data: unknown }> = [];
  const deadlines: Array<() => void> = [];
  const flows = createFlowStore();
  const executions = createExecutionStore();
  const scripts: FlowScriptRunner = {
    canRun: async () => true,
    run: async (request) => {
      scriptCalls.push({ scriptId: request.scriptId, data: request.data });
      return (options.script ?? (async () => scriptResult()))(request);
    },
    // These worlds' scripts never suspend.
    ended: async () => undefined,
  };
  let pipeline: TriggerPipeline | undefined;
  // The bus: every firing goes to the trigger pipeline, as the flows' rule routes it.
  const bus = async (event: PlatformEventInput) => {
    published.push(event);
    if (event.source === 'scheduler') await pipeline!.handle({ ...event, id: newId('evt') });
    return { eventId: 'evt' };
  };
  const scheduler = createLocalScheduler({ clock, publish: bus, heartbeat: false });
  const executor = createExecutor({
    scripts,
    tools: { resolve: async () => ({ tools: [], unknown: [] }) },
    model: () => options.model,
    durable: { run: () => Promise.reject(new Error('these flows have no approval rules')) },
    clock,
    deadline: () => ({ expired: new Promise<void>((expire) => deadlines.push(expire)), clear: () => undefined }),
    wait: async () => undefined,
  });
  const runStore = createRunStore(() => createFileBlobStore('scripts'));
  const records = { put: runStore.putFlowRun, end: runStore.endFlowRun, putMigrated: runStore.putMigrated };
  const runs = createFlowRuns({ flows, executions, records, executor, scripts, scheduler, publisher: { publish: bus }, limiter: memoryRateLimiter(), clock });
  const ledger = createDeliveryStore(clock);
  // The trigger pipeline with the event-flow kind only: these tests run no subscriptions.
  pipeline = createTriggerPipeline({
    kinds: [createFlowEventTarget({ flows, executions, runs })],
    ledger,
    history: createEventHistoryStore(),
    clock,
    metrics: recordingMetrics(),
  });
  // runFlow waits for its run here: the background and the bound are the HTTP tests' (test/e2e/long-runs.test.ts).
  const longRuns = createFlowLongRuns({
    runs,
    executions,
    ledger,
    background: (run) => ({ start: async (job) => ({ ended: run(job), detached: false }) }),
    boundMs: 0,
    clock,
  });
  const service = createFlowService({ flows, executions, scripts, scheduler, longRuns, clock, llmConfigured: () => true, catalog: dynamoCatalogStamps });
  const caller = { userId: newId('usr'), keyId: 'key_test', scopes: ['*'] };
  return {
    clock,
    at,
    advance,
    published,
    scriptCalls,
    deadlines,
    scheduler,
    runs,
    service,
    caller,
    flows,
    executions,
    records,
    handle: (detail: Record<string, unknown>) => pipeline!.handle(detail),
    event: (text: string) => pipeline!.handle({ id: newId('evt'), type: 'chatapp.message', source: 'chatapp', userId: caller.userId, content: { text } }),
    eventFlow: (executionType: 'llm' | 'direct') =>
      service.createEventFlow(caller, {
        title: `on chat ${executionType}`,
        description: 'reacts to chat messages',
        eventType: 'chatapp.message',
        conditions: { field: 'text', operator: 'contains', value: 'deploy' },
        prompt: 'Summarise the message',
        recommendedTools: [],
        scope: 'user',
        executionType,
        ...(executionType === 'direct' && { scriptId: 'scr_handler' }),
      }),
    pendingRetries: () => scheduler.pendingOneShots().map((once) => ({ at: once.at, attempt: once.event.detail.attempt })),
    /** Moves the clock to the next pending retry and fires it. */
    async fireNextRetry() {
      const [next] = scheduler.pendingOneShots();
      at(next!.at);
      return scheduler.fireOneShots();
    },
    paused: () => published.filter((item) => item.type === 'system.flow_paused'),
  };
}
