import { beforeAll, describe, expect, inject, it } from 'vitest';
import { normalizeEvent } from '../../functions/platform/event-object.js';
import { type EventWaitResolver, type EventWaits, createEventWaitStore, createEventWaits } from '../../functions/events/event-waits.js';
import { createEventWaitTarget } from '../../functions/events/wait-target.js';
import { type Clock, systemClock } from '../../functions/platform/clock.js';

beforeAll(() => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
});

let counter = 0;
const unique = (prefix: string) => `${prefix}_${process.pid}x${Date.now().toString(36)}x${counter++}`;

/** The engine's side: which runs were resumed with which event. */
function recordingResolver() {
  const resumed: Array<{ executionId: string; name: string; eventId: string }> = [];
  const resolver: EventWaitResolver = {
    resolve: async (executionId, name, { result }) => {
      resumed.push({ executionId, name, eventId: result.id });
      return true;
    },
  };
  return { resolver, resumed };
}

const eventOf = (userId: string, type: string, fields: Record<string, unknown> = {}) =>
  normalizeEvent({ type, ...fields }, { id: unique('evt'), userId, now: systemClock.nowIso() });

/** Delivers an event as the trigger pipeline's wait kind does: the waits of its user and type, those it matches, each resumed; how many were. */
async function deliver(waits: EventWaits, event: ReturnType<typeof eventOf>) {
  const matching = (
    await createEventWaitTarget({
      waits,
      history: { recordDelivery: async () => undefined },
      clock: { now: Date.now, nowIso: () => new Date().toISOString() },
    }).candidates(event.userId, event.type)
  ).filter((candidate) => candidate.compile()(event));
  const runs = await Promise.all(matching.map((candidate) => candidate.delivery({ normalized: event, enriched: event }).run()));
  return runs.filter((run) => run.status === 'resumed').length;
}

describe('events: waits of durable runs', () => {
  it('resumes a run with a matching event of its user, once', async () => {
    // Prepare
    const { resolver, resumed } = recordingResolver();
    const waits = createEventWaits({ store: createEventWaitStore({ cached: false }), resolver, clock: systemClock });
    const run = { executionId: unique('exe'), userId: unique('usr') };
    await waits.open(run, 'paid', { eventType: 'payment.completed', conditions: [{ field: 'data.orderId', operator: 'equals', value: 'o-1' }] });
    const event = eventOf(run.userId, 'payment.completed', { data: { orderId: 'o-1' } });
    // Act
    const first = await deliver(waits, event);
    const again = await deliver(waits, event);
    // Assess
    expect(first).toBe(1);
    expect(again).toBe(0);
    expect(resumed).toEqual([{ executionId: run.executionId, name: 'paid', eventId: event.id }]);
  });

  it('is not resumed by another user’s event, a non-matching one, or another type', async () => {
    // Prepare
    const { resolver, resumed } = recordingResolver();
    const waits = createEventWaits({ store: createEventWaitStore({ cached: false }), resolver, clock: systemClock });
    const run = { executionId: unique('exe'), userId: unique('usr') };
    await waits.open(run, 'paid', { eventType: 'payment.completed', conditions: [{ field: 'data.orderId', operator: 'equals', value: 'o-1' }] });
    // Act
    const counts = [
      await deliver(waits, eventOf(unique('usr'), 'payment.completed', { data: { orderId: 'o-1' } })),
      await deliver(waits, eventOf(run.userId, 'payment.completed', { data: { orderId: 'o-2' } })),
      await deliver(waits, eventOf(run.userId, 'payment.failed', { data: { orderId: 'o-1' } })),
    ];
    // Assess
    expect(counts).toEqual([0, 0, 0]);
    expect(resumed).toEqual([]);
    expect(await waits.waiting(run.userId, 'payment.completed')).toHaveLength(1);
  });

  it('keeps the wait when the engine fails, so the retried event resumes the run', async () => {
    // Prepare
    const resumed: string[] = [];
    let failures = 1;
    const resolver: EventWaitResolver = {
      resolve: async (executionId) => {
        if (failures-- > 0) throw new Error('engine unreachable');
        resumed.push(executionId);
        return true;
      },
    };
    const waits = createEventWaits({ store: createEventWaitStore({ cached: false }), resolver, clock: systemClock });
    const run = { executionId: unique('exe'), userId: unique('usr') };
    await waits.open(run, 'any', { eventType: 'custom.ready' });
    const event = eventOf(run.userId, 'custom.ready');
    // Act
    await expect(deliver(waits, event)).rejects.toThrow('engine unreachable');
    const retried = await deliver(waits, event);
    // Assess
    expect(retried).toBe(1);
    expect(resumed).toEqual([run.executionId]);
  });

  it('does not resume a run whose wait has expired, and leaves the wait to its timeout', async () => {
    // Prepare
    const { resolver, resumed } = recordingResolver();
    let now = Date.now();
    const clock: Clock = { now: () => now, nowIso: () => new Date(now).toISOString() };
    const store = createEventWaitStore({ cached: false });
    const waits = createEventWaits({ store, resolver, clock });
    const run = { executionId: unique('exe'), userId: unique('usr') };
    await waits.open(run, 'soon', { eventType: 'custom.ready', timeout: { minutes: 1 } });
    now += 61_000;
    // Act
    const count = await deliver(waits, eventOf(run.userId, 'custom.ready'));
    // Assess
    expect(count).toBe(0);
    expect(resumed).toEqual([]);
    expect(await waits.waiting(run.userId, 'custom.ready')).toEqual([]);
    expect(await store.waiting(run.userId, 'custom.ready')).toHaveLength(1);
  });

  it.each([
    [{ eventType: 'platform.script_schedule' }, 'eventType'],
    [{ eventType: 'custom.ready', conditions: [{ field: 'data.x', operator: 'sounds_like', value: 1 }] }, 'conditions.0.operator'],
    [{ eventType: 'custom.ready', timeout: { days: 366 } }, 'timeout'],
    [{ eventType: 'custom.ready', extra: true }, 'extra'],
  ])('refuses a bad wait %j naming %s, and stores nothing', async (input, field) => {
    // Prepare
    const { resolver } = recordingResolver();
    const waits = createEventWaits({ store: createEventWaitStore({ cached: false }), resolver, clock: systemClock });
    const run = { executionId: unique('exe'), userId: unique('usr') };
    // Act
    const opened = waits.open(run, 'bad', input);
    // Assess
    await expect(opened).rejects.toMatchObject({ code: 'VALIDATION_ERROR', details: { field } });
    expect(await waits.waiting(run.userId, String(input.eventType))).toEqual([]);
  });

  it('waits for the platform’s owner events too', async () => {
    // Prepare
    const { resolver, resumed } = recordingResolver();
    const waits = createEventWaits({ store: createEventWaitStore({ cached: false }), resolver, clock: systemClock });
    const run = { executionId: unique('exe'), userId: unique('usr') };
    await waits.open(run, 'asked', { eventType: 'platform.approval.requested' });
    // Act
    const count = await deliver(waits, eventOf(run.userId, 'platform.approval.requested'));
    // Assess
    expect(count).toBe(1);
    expect(resumed).toHaveLength(1);
  });
});
