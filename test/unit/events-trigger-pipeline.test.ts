import { describe, expect, it, vi } from 'vitest';
import { scheduleFiringType, webhookDeliverySource, webhookDeliveryType } from '../../functions/events/internal-events.js';
import { createSubscriptionTarget } from '../../functions/events/subscription-target.js';
import type { TargetKind } from '../../functions/events/target-kind.js';
import { createTriggerPipeline } from '../../functions/events/trigger-pipeline.js';
import type {
  ActiveSubscription,
  DeliveryLedger,
  DeliveryOutcome,
  EventHistory,
  ScheduleRecord,
  ScriptRunRequest,
  WebhookRecord,
} from '../../functions/events/ports.js';
import { ConflictError, CostLimitExceededError, NotFoundError } from '../../functions/platform/errors.js';
import { recordingMetrics } from '../support/metrics.js';
import { sampleInput } from '../support/event-samples.js';

const clock = { now: () => Date.parse('2026-03-02T17:00:00Z'), nowIso: () => '2026-03-02T17:00:00.000Z' };

interface FakeScript {
  userId: string;
  deployed: boolean;
  run?: (request: ScriptRunRequest) => Promise<{ executionId: string; status: string }>;
}

/**
 * The trigger pipeline with the subscription kind (and any further kinds) over small fakes of their ports; the ledger
 * keeps the real claim rule (one live claim per delivery).
 */
function world(otherKinds: TargetKind[] = []) {
  const subscriptions: ActiveSubscription[] = [];
  const scripts = new Map<string, FakeScript>();
  const runs: ScriptRunRequest[] = [];
  const claims = new Map<string, { token: string; outcome?: DeliveryOutcome }>();
  const webhooks = new Map<string, WebhookRecord>();
  const schedules = new Map<string, ScheduleRecord>();
  let tokens = 0;
  const ledger: DeliveryLedger = {
    async claim(id) {
      if (claims.has(id)) return undefined;
      const token = `t${tokens++}`;
      claims.set(id, { token });
      return token;
    },
    async complete(id, token, outcome) {
      if (claims.get(id)?.token === token) claims.set(id, { token, outcome });
    },
    async release(id, token) {
      if (claims.get(id)?.token === token) claims.delete(id);
    },
  };
  const metrics = recordingMetrics();
  const history: Array<{ eventId: string; delivery?: Parameters<EventHistory['recordDelivery']>[1] }> = [];
  const subscriptionKind = createSubscriptionTarget({
    index: { active: async (userId, eventType) => subscriptions.filter((s) => s.userId === userId && s.eventType === eventType) },
    history: { recordDelivery: async (event, delivery) => void history.push({ eventId: event.id, delivery }) },
    scripts: {
      describe: async (scriptId) => scripts.get(scriptId),
      wakeRunQueue: async () => undefined,
      // Refuses as the scripts area's runner does: NOT_FOUND for a script that is gone or not the user's, CONFLICT if not deployed.
      run: async (request) => {
        const script = scripts.get(request.scriptId);
        if (!script || script.userId !== request.userId) throw new NotFoundError('scriptId', request.scriptId, 'script');
        if (!script.deployed) throw new ConflictError(`script ${request.scriptId} is not deployed`);
        runs.push(request);
        return script.run ? script.run(request) : { executionId: `exe_${runs.length}`, status: 'success' };
      },
    },
    triggers: {
      getWebhook: async (id) => webhooks.get(id),
      getSchedule: async (id) => schedules.get(id),
      retireSchedule: async (id) => void schedules.delete(id),
    },
    clock,
  });
  const pipeline = createTriggerPipeline({
    kinds: [subscriptionKind, ...otherKinds],
    ledger,
    history: { recordEvent: async (event) => void history.push({ eventId: event.id }) },
    clock,
    metrics,
  });
  const subscribe = (id: string, scriptId: string, conditions: unknown[] = [], userId = 'usr_a', eventType = 'chatapp.message') =>
    subscriptions.push({ subscriptionId: id, scriptId, userId, eventType, conditions, updatedAt: '2026-03-01T00:00:00.000Z' });
  return { pipeline, subscriptions, scripts, runs, claims, webhooks, schedules, subscribe, metrics, history };
}

const chatEvent = (userId = 'usr_a', id = 'evt_1') => ({ ...sampleInput('chatapp.message'), id, userId });

describe('events: trigger pipeline, subscriptions', () => {
  it('runs the deployed scripts whose conditions match, with the enriched event object', async () => {
    // Prepare
    const w = world();
    w.scripts.set('scr_1', { userId: 'usr_a', deployed: true });
    w.scripts.set('scr_2', { userId: 'usr_a', deployed: true });
    w.subscribe('sub_match', 'scr_1', [{ field: 'enrichment.tickers.0.symbol', operator: 'equals', value: 'AAPL' }]);
    w.subscribe('sub_miss', 'scr_2', [{ field: 'actor.name', operator: 'equals', value: 'Nobody' }]);
    // Act
    const report = await w.pipeline.handle(chatEvent());
    // Assess
    expect(report).toEqual({ matched: 1, executed: 1, duplicates: 0, skipped: 0, refused: 0 });
    expect(w.runs).toHaveLength(1);
    expect(w.runs[0]).toMatchObject({ scriptId: 'scr_1', userId: 'usr_a', trigger: { type: 'event', source: 'sub_match', event: 'chatapp.message' } });
    expect(w.runs[0]!.data).toMatchObject({ id: 'evt_1', userId: 'usr_a', senderName: 'Dana Whitfield', enrichment: { sentiment: { label: 'positive' } } });
    expect(w.metrics.points).toEqual([{ name: 'EventsDispatched', unit: 'Count', value: 1 }]);
  });

  it('never fires another user\u2019s subscription', async () => {
    // Prepare
    const w = world();
    w.scripts.set('scr_b', { userId: 'usr_b', deployed: true });
    w.subscribe('sub_b', 'scr_b', [], 'usr_b');
    // Act
    const report = await w.pipeline.handle(chatEvent('usr_a'));
    // Assess
    expect(report.matched).toBe(0);
    expect(w.runs).toEqual([]);
  });

  it('skips scripts that are not deployed or no longer the subscriber\u2019s', async () => {
    // Prepare
    const w = world();
    w.scripts.set('scr_draft', { userId: 'usr_a', deployed: false });
    w.scripts.set('scr_sold', { userId: 'usr_other', deployed: true });
    w.subscribe('sub_draft', 'scr_draft');
    w.subscribe('sub_sold', 'scr_sold');
    w.subscribe('sub_gone', 'scr_deleted');
    // Act
    const report = await w.pipeline.handle(chatEvent());
    // Assess
    expect(report).toMatchObject({ matched: 3, executed: 0, skipped: 3 });
    expect(w.runs).toEqual([]);
    expect(w.claims.get('evt_1#sub_draft')?.outcome).toMatchObject({ result: 'skipped', reason: expect.stringContaining('not deployed') });
  });

  it('holds a script\u2019s deliveries beyond its 10 concurrent runs before claiming them, and no other script\u2019s', async () => {
    // Prepare
    const w = world();
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (open = resolve));
    w.scripts.set('scr_busy', { userId: 'usr_a', deployed: true, run: async () => gate.then(() => ({ executionId: 'exe_busy', status: 'success' })) });
    w.scripts.set('scr_other', { userId: 'usr_a', deployed: true });
    w.subscribe('sub_busy', 'scr_busy', [{ field: 'id', operator: 'starts_with', value: 'evt_busy' }]);
    w.subscribe('sub_other', 'scr_other', [{ field: 'id', operator: 'equals', value: 'evt_other' }]);
    // Act
    const busy = Array.from({ length: 12 }, (_, index) => w.pipeline.handle(chatEvent('usr_a', `evt_busy${index}`)));
    await vi.waitFor(() => expect(w.runs.filter((run) => run.scriptId === 'scr_busy')).toHaveLength(10));
    const other = await w.pipeline.handle(chatEvent('usr_a', 'evt_other'));
    // Assess
    expect(other.executed).toBe(1);
    expect([...w.claims.keys()].filter((id) => id.endsWith('#sub_busy'))).toHaveLength(10);
    open();
    const reports = await Promise.all(busy);
    expect(reports.every((report) => report.executed === 1)).toBe(true);
    expect(w.runs.filter((run) => run.scriptId === 'scr_busy')).toHaveLength(12);
  });

  it('records the event in its user\u2019s history, once more on a retry, and each delivery once with its outcome', async () => {
    // Prepare
    const w = world();
    w.scripts.set('scr_1', { userId: 'usr_a', deployed: true });
    w.subscribe('sub_1', 'scr_1');
    w.subscribe('sub_gone', 'scr_deleted');
    // Act
    await w.pipeline.handle(chatEvent());
    await w.pipeline.handle(chatEvent());
    // Assess
    expect(w.history.filter((entry) => !entry.delivery)).toEqual([{ eventId: 'evt_1' }, { eventId: 'evt_1' }]);
    const deliveries = w.history.flatMap((entry) => (entry.delivery ? [entry.delivery] : []));
    expect(deliveries).toHaveLength(2);
    expect(deliveries).toContainEqual(
      expect.objectContaining({ subscriptionId: 'sub_1', scriptId: 'scr_1', result: 'executed', executionId: 'exe_1', status: 'success' }),
    );
    expect(deliveries).toContainEqual(expect.objectContaining({ subscriptionId: 'sub_gone', result: 'skipped', executionId: null }));
  });

  it('records an event nobody subscribes to, with no delivery', async () => {
    // Prepare
    const w = world();
    // Act
    await w.pipeline.handle(chatEvent('usr_a', 'evt_quiet'));
    // Assess
    expect(w.history).toEqual([{ eventId: 'evt_quiet' }]);
  });

  it('runs nothing twice when the same event is delivered again', async () => {
    // Prepare
    const w = world();
    w.scripts.set('scr_1', { userId: 'usr_a', deployed: true });
    w.subscribe('sub_1', 'scr_1');
    // Act
    const first = await w.pipeline.handle(chatEvent());
    const again = await w.pipeline.handle(chatEvent());
    // Assess
    expect(first.executed).toBe(1);
    expect(again).toMatchObject({ executed: 0, duplicates: 1 });
    expect(w.runs).toHaveLength(1);
  });

  it('keeps delivering after a crashing script, and a failure of the runner is retried without re-running the others', async () => {
    // Prepare
    const w = world();
    let runnerDown = true;
    w.scripts.set('scr_crash', { userId: 'usr_a', deployed: true, run: async () => ({ executionId: 'exe_crash', status: 'error' }) });
    w.scripts.set('scr_flaky', {
      userId: 'usr_a',
      deployed: true,
      run: async () => {
        if (runnerDown) throw new Error('runner unreachable');
        return { executionId: 'exe_flaky', status: 'success' };
      },
    });
    w.scripts.set('scr_ok', { userId: 'usr_a', deployed: true });
    w.subscribe('sub_crash', 'scr_crash');
    w.subscribe('sub_flaky', 'scr_flaky');
    w.subscribe('sub_ok', 'scr_ok');
    // Act
    const firstAttempt = w.pipeline.handle(chatEvent());
    await expect(firstAttempt).rejects.toThrow('1 of 3 deliveries failed');
    runnerDown = false;
    const retry = await w.pipeline.handle(chatEvent());
    // Assess
    expect(retry).toMatchObject({ executed: 1, duplicates: 2 });
    expect(w.runs.map((run) => run.scriptId).sort()).toEqual(['scr_crash', 'scr_flaky', 'scr_flaky', 'scr_ok']);
    expect(w.claims.get('evt_1#sub_crash')?.outcome).toEqual({ result: 'executed', executionId: 'exe_crash', status: 'error' });
  });

  it('records a run refused by the script\u2019s limits and does not retry it', async () => {
    // Prepare
    const w = world();
    w.scripts.set('scr_1', { userId: 'usr_a', deployed: true, run: async () => Promise.reject(new CostLimitExceededError('over maxCostPerExecution')) });
    w.subscribe('sub_1', 'scr_1');
    // Act
    const report = await w.pipeline.handle(chatEvent());
    // Assess
    expect(report).toMatchObject({ refused: 1, executed: 0 });
    expect(w.claims.get('evt_1#sub_1')?.outcome).toMatchObject({ result: 'refused', code: 'COST_LIMIT_EXCEEDED' });
  });

  it('runs a due schedule with its data once per minute, and skips a disabled one', async () => {
    // Prepare
    const w = world();
    w.scripts.set('scr_1', { userId: 'usr_a', deployed: true });
    const schedule: ScheduleRecord = {
      scheduleId: 'sch_1',
      scriptId: 'scr_1',
      userId: 'usr_a',
      name: 'n',
      cronExpression: '0 0 13 * 5',
      enabled: true,
      data: { report: 'daily' },
      createdAt: '',
    };
    w.schedules.set('sch_1', schedule);
    w.schedules.set('sch_off', { ...schedule, scheduleId: 'sch_off', enabled: false });
    const firing = { type: scheduleFiringType, source: 'scheduler', userId: 'usr_a', scheduleId: 'sch_1', cronFilter: '0 0 13 * 5' };
    // Act
    const due = await w.pipeline.handle({ ...firing, scheduledTime: '2026-03-13T00:00:00.000Z' });
    const repeated = await w.pipeline.handle({ ...firing, scheduledTime: '2026-03-13T00:00:00.000Z' });
    const filtered = await w.pipeline.handle({ ...firing, scheduledTime: '2026-03-14T00:00:00.000Z' });
    const disabled = await w.pipeline.handle({ ...firing, scheduleId: 'sch_off', scheduledTime: '2026-03-13T00:00:00.000Z' });
    // Assess
    expect([due.executed, repeated.duplicates, filtered.matched, disabled.skipped]).toEqual([1, 1, 0, 1]);
    expect(w.claims.has('sch_1@2026-03-13T00:00:00.000Z')).toBe(true);
    expect(w.runs).toEqual([{ scriptId: 'scr_1', userId: 'usr_a', data: { report: 'daily' }, trigger: { type: 'schedule', source: 'sch_1' } }]);
  });

  it('retires the schedule of a deleted script at its next firing, and keeps those of live scripts', async () => {
    // Prepare
    const w = world();
    w.scripts.set('scr_live', { userId: 'usr_a', deployed: true });
    const base: ScheduleRecord = {
      scheduleId: 'sch_gone',
      scriptId: 'scr_deleted',
      userId: 'usr_a',
      name: 'n',
      cronExpression: '* * * * *',
      enabled: true,
      data: {},
      createdAt: '',
    };
    w.schedules.set('sch_gone', base);
    w.schedules.set('sch_live', { ...base, scheduleId: 'sch_live', scriptId: 'scr_live' });
    const firing = { type: scheduleFiringType, source: 'scheduler', userId: 'usr_a', scheduledTime: '2026-03-13T00:00:00.000Z' };
    // Act
    const gone = await w.pipeline.handle({ ...firing, scheduleId: 'sch_gone' });
    const live = await w.pipeline.handle({ ...firing, scheduleId: 'sch_live' });
    // Assess
    expect([gone.skipped, gone.executed, live.executed]).toEqual([1, 0, 1]);
    expect([...w.schedules.keys()]).toEqual(['sch_live']);
  });

  it('runs a webhook delivery with its body, only for the webhook\u2019s owner', async () => {
    // Prepare
    const w = world();
    w.scripts.set('scr_1', { userId: 'usr_a', deployed: true });
    w.webhooks.set('whk_1', { webhookId: 'whk_1', scriptId: 'scr_1', userId: 'usr_a', name: 'n', enabled: true, createdAt: '' });
    const delivery = { type: webhookDeliveryType, source: webhookDeliverySource, webhookId: 'whk_1', deliveryId: 'whk_1#abc', body: { paid: 5 } };
    // Act
    const forged = await w.pipeline.handle({ ...delivery, userId: 'usr_b' });
    const real = await w.pipeline.handle({ ...delivery, userId: 'usr_a' });
    // Assess
    expect([forged.skipped, real.executed]).toEqual([1, 1]);
    expect(w.runs).toMatchObject([{ scriptId: 'scr_1', data: { paid: 5 }, trigger: { type: 'webhook', source: 'whk_1' } }]);
  });

  it('uses new conditions as soon as the subscription\u2019s revision changes', async () => {
    // Prepare
    const w = world();
    w.scripts.set('scr_1', { userId: 'usr_a', deployed: true });
    w.subscribe('sub_1', 'scr_1', [{ field: 'actor.name', operator: 'equals', value: 'Nobody' }]);
    await w.pipeline.handle(chatEvent('usr_a', 'evt_before'));
    // Act
    Object.assign(w.subscriptions[0]!, {
      conditions: [{ field: 'actor.name', operator: 'starts_with', value: 'Dana' }],
      updatedAt: '2026-03-02T00:00:00.000Z',
    });
    const after = await w.pipeline.handle(chatEvent('usr_a', 'evt_after'));
    // Assess
    expect(after.executed).toBe(1);
  });
});

/** A second kind of target beside subscriptions: one target per user listening to every chat message. */
function listeningKind(name: string, options: { down?: () => boolean; refusal?: Error } = {}) {
  const delivered: Array<{ eventId: string; enriched: boolean }> = [];
  const kind: TargetKind = {
    name,
    skippedCodes: new Set(['NOT_FOUND']),
    candidates: async (userId, eventType) =>
      eventType !== 'chatapp.message'
        ? []
        : [
            {
              id: `${name}_${userId}`,
              revision: 'r1',
              compile: () => () => true,
              delivery: ({ enriched }) => ({
                deliveryId: `${enriched.id}#${name}_${userId}`,
                async run() {
                  if (options.down?.()) throw new Error(`${name} unreachable`);
                  if (options.refusal) throw options.refusal;
                  delivered.push({ eventId: enriched.id, enriched: 'enrichment' in enriched });
                  return { executionId: `exe_${name}`, status: 'success' };
                },
              }),
            },
          ],
  };
  return { kind, delivered };
}

describe('events: trigger pipeline, several kinds of target', () => {
  it('delivers one event to every kind that has a matching target, each claimed once in the one ledger', async () => {
    // Prepare
    const flows = listeningKind('flow');
    const w = world([flows.kind]);
    w.scripts.set('scr_1', { userId: 'usr_a', deployed: true });
    w.subscribe('sub_1', 'scr_1');
    // Act
    const report = await w.pipeline.handle(chatEvent());
    // Assess
    expect(report).toEqual({ matched: 2, executed: 2, duplicates: 0, skipped: 0, refused: 0 });
    expect(w.runs.map((run) => run.scriptId)).toEqual(['scr_1']);
    expect(flows.delivered).toEqual([{ eventId: 'evt_1', enriched: true }]);
    expect([...w.claims.keys()].sort()).toEqual(['evt_1#flow_usr_a', 'evt_1#sub_1']);
    expect(w.history.filter((entry) => !entry.delivery)).toEqual([{ eventId: 'evt_1' }]);
    expect(w.metrics.points).toEqual([{ name: 'EventsDispatched', unit: 'Count', value: 1 }]);
  });

  it('keeps delivering to the other kinds when one kind fails, and its retry runs only what failed', async () => {
    // Prepare
    let flowsDown = true;
    const flows = listeningKind('flow', { down: () => flowsDown });
    const w = world([flows.kind]);
    w.scripts.set('scr_1', { userId: 'usr_a', deployed: true });
    w.subscribe('sub_1', 'scr_1');
    // Act
    await expect(w.pipeline.handle(chatEvent())).rejects.toThrow('1 of 1 deliveries failed (flow)');
    const claimsAfterFailure = [...w.claims.keys()];
    flowsDown = false;
    const retry = await w.pipeline.handle(chatEvent());
    // Assess
    expect(w.runs.map((run) => run.scriptId)).toEqual(['scr_1']);
    expect(claimsAfterFailure).toEqual(['evt_1#sub_1']);
    expect(retry).toMatchObject({ matched: 2, executed: 1, duplicates: 1 });
    expect(flows.delivered).toEqual([{ eventId: 'evt_1', enriched: true }]);
  });

  it('classifies a refusal with the codes of the kind that refused', async () => {
    // Prepare: NOT_FOUND is this kind's "nothing to run"; a cost limit is a refusal for every kind
    const gone = listeningKind('gone', { refusal: new NotFoundError('flowId', 'flw_1', 'flow') });
    const limited = listeningKind('limited', { refusal: new CostLimitExceededError('over maxCostPerExecution') });
    const w = world([gone.kind, limited.kind]);
    // Act
    const report = await w.pipeline.handle(chatEvent());
    // Assess
    expect(report).toMatchObject({ matched: 2, skipped: 1, refused: 1 });
    expect(w.claims.get('evt_1#gone_usr_a')?.outcome).toMatchObject({ result: 'skipped' });
    expect(w.claims.get('evt_1#limited_usr_a')?.outcome).toMatchObject({ result: 'refused', code: 'COST_LIMIT_EXCEEDED' });
  });

  it('refuses two kinds that take the same internal delivery type, or share a name', () => {
    // Prepare
    const handle = async () => ({ matched: 0, executed: 0, duplicates: 0, skipped: 0, refused: 0 });
    const firingsToo: TargetKind = { ...listeningKind('other').kind, internal: { [scheduleFiringType]: { source: 'scheduler', handle } } };
    // Act / Assess
    expect(() => world([firingsToo])).toThrow(`the internal type ${scheduleFiringType} is taken by both subscription and other`);
    expect(() => world([listeningKind('subscription').kind])).toThrow('two target kinds share a name');
  });

  it('matches nothing for a target whose stored conditions no longer compile, and still delivers to the others', async () => {
    // Prepare
    const broken = listeningKind('broken');
    const brokenKind: TargetKind = {
      ...broken.kind,
      candidates: async (userId, eventType) =>
        (await broken.kind.candidates(userId, eventType)).map((candidate) => ({
          ...candidate,
          compile: () => {
            throw new Error('unknown operator');
          },
        })),
    };
    const w = world([brokenKind]);
    w.scripts.set('scr_1', { userId: 'usr_a', deployed: true });
    w.subscribe('sub_1', 'scr_1');
    // Act
    const report = await w.pipeline.handle(chatEvent());
    // Assess
    expect(report).toMatchObject({ matched: 1, executed: 1 });
    expect(broken.delivered).toEqual([]);
  });

  it("never tests a target with another kind's conditions, even under the same id and revision", async () => {
    // Prepare: two kinds whose targets share an id; only the first kind's conditions match
    const matching = listeningKind('first');
    const other = listeningKind('second');
    const sameId = (kind: TargetKind, test: () => boolean): TargetKind => ({
      ...kind,
      candidates: async (userId, eventType) =>
        (await kind.candidates(userId, eventType)).map((candidate) => ({ ...candidate, id: 'shared_1', compile: () => test })),
    });
    const w = world([sameId(matching.kind, () => true), sameId(other.kind, () => false)]);
    // Act
    const first = await w.pipeline.handle(chatEvent('usr_a', 'evt_1'));
    const second = await w.pipeline.handle(chatEvent('usr_a', 'evt_2'));
    // Assess
    expect([first.matched, second.matched]).toEqual([1, 1]);
    expect(matching.delivered.map((delivery) => delivery.eventId)).toEqual(['evt_1', 'evt_2']);
    expect(other.delivered).toEqual([]);
  });
});
