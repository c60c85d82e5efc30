// 1,000 active time flows due in the same minute, in local mode: ten users with a hundred flows each (the daily
// creation limit), each user's flows on one deployed script. The in-process scheduler is driven with its own clock
// to that minute and ticked once, as its heartbeat does at second 0; each execution's start (its `timestamp`, the
// flow's lastExecutedAt) is measured against that tick.
import { inProcessBus } from '../functions/adapters/local/event-bus.js';
import { createLocalScheduler } from '../functions/adapters/local/scheduler.js';
import { createExecutionStore } from '../functions/flows/execution-store.js';
import { flowSchedule } from '../functions/flows/internal-events.js';
import { createFlowStore } from '../functions/flows/store.js';
import { type BarePlatform, type BenchFigure, percentile } from './support.js';

const users = 10;
const flowsPerUser = 100;
const minute = '2027-01-01T00:00:00.000Z';
const code = 'async function handler(event) { return { success: true, at: event.data.scheduledTime }; }';
const finishTimeoutMs = 300_000;

async function call(platform: BarePlatform, apiKey: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${platform.baseUrl}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...headers },
    body: JSON.stringify(body),
  });
  const parsed = (await response.json()) as { data: Record<string, any> };
  if (!response.ok) throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(parsed)}`);
  return parsed.data;
}

/** A user with a deployed script and a hundred time flows on it, due only on 1 January at midnight. */
async function givenUserWithFlows(platform: BarePlatform, index: number): Promise<{ userId: string; flowIds: string[] }> {
  const user = await call(
    platform,
    '',
    '/api/admin/v1/users',
    { username: `flows-bench-${index}-${Date.now().toString(36)}` },
    { 'x-admin-key': platform.adminKey },
  );
  const script = await call(platform, user.apiKey, '/api/sdk/v1/scripts', { name: `minute-${index}`, code, config: { maxExecutionsPerDay: 1_000_000 } });
  await call(platform, user.apiKey, '/api/sdk/v1/scripts/deployScript', { scriptId: script.id });
  const flowIds: string[] = [];
  for (let batch = 0; batch < flowsPerUser; batch += 10) {
    const created = await Promise.all(
      Array.from({ length: 10 }, (_, offset) =>
        call(platform, user.apiKey, '/api/sdk/v1/flows/createTimeFlow', {
          title: `report ${batch + offset}`,
          description: 'new year report',
          schedule: '0 0 1 1 *',
          scriptId: script.id,
        }),
      ),
    );
    flowIds.push(...created.map((flow) => flow.id as string));
  }
  return { userId: user.userId, flowIds };
}

export async function measureMinute(platform: BarePlatform): Promise<BenchFigure[]> {
  const owners = await Promise.all(Array.from({ length: users }, (_, index) => givenUserWithFlows(platform, index)));
  const flows = createFlowStore();
  const all = owners.flatMap(({ userId, flowIds }) => flowIds.map((flowId) => ({ flowId, userId })));
  console.log(`  ${all.length} time flows of ${users} users created`);

  let now = Date.parse(minute) - 60_000;
  const scheduler = createLocalScheduler({
    clock: { now: () => now, nowIso: () => new Date(now).toISOString() },
    publish: (event) => inProcessBus.publish(event),
    heartbeat: false,
  });
  for (const flow of all) await scheduler.put(flowSchedule({ ...flow, cronExpression: '0 0 1 1 *' }, true));
  await scheduler.tick();
  now = Date.parse(minute);

  const tickedAt = Date.now();
  const fired = await scheduler.tick();
  const publishedMs = Date.now() - tickedAt;

  let finished = 0;
  while (Date.now() - tickedAt < finishTimeoutMs) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const states = (await Promise.all(owners.map(({ userId }) => flows.listByUser(userId, ['executionCount', 'runs'])))).flat();
    finished = states.filter((state) => state.executionCount >= 1 && Object.keys(state.runs).length === 0).length;
    if (finished === all.length) break;
  }
  const finishedMs = Date.now() - tickedAt;

  // The first execution of each flow is the one this minute started (a failure's retry comes a minute later).
  const executions = createExecutionStore();
  const firsts = (await Promise.all(all.map(async ({ flowId }) => (await executions.listResults(flowId, Date.now())).at(-1)))).filter(
    (result) => result !== undefined,
  );
  const failures = firsts.filter((result) => result.status !== 'success').map((result) => result.error?.code ?? 'unknown');
  const offsets = Float64Array.from(firsts.map((result) => Date.parse(result.timestamp) - tickedAt)).sort();
  const notStarted = all.length - offsets.length;
  console.log(
    `  tick fired ${fired} schedules (published in ${publishedMs} ms); ${offsets.length} started, ${finished} finished in ${(finishedMs / 1000).toFixed(1)} s`,
  );
  if (failures.length) console.log(`  failed first runs: ${failures.length} (${[...new Set(failures)].join(', ')})`);
  return [
    { name: 'flows.minute_start_max_ms', value: offsets.length ? offsets[offsets.length - 1]! : Number.NaN, unit: 'ms', target: 2000, better: 'lower' },
    { name: 'flows.minute_start_p50_ms', value: offsets.length ? percentile(offsets, 50) : Number.NaN, unit: 'ms', target: 2000, better: 'lower' },
    { name: 'flows.minute_not_started', value: notStarted, unit: 'flows', target: 0, better: 'lower' },
    { name: 'flows.minute_failed_runs', value: failures.length, unit: 'runs', target: 0, better: 'lower' },
    // Shown for context: every run goes through the script runtime, ten at a time per script.
    { name: 'flows.minute_all_finished_s', value: Math.round(finishedMs / 100) / 10, unit: 's', target: 60, better: 'lower' },
  ];
}
