import { afterEach, describe, expect, it, vi } from 'vitest';
import { attachBusRule, retryDelaysMs } from '../../functions/adapters/local/bus-rules.js';
import type { PlatformEventInput } from '../../functions/platform/ports.js';

type BusEvent = PlatformEventInput & { id: string };

/** A bus with one listener slot, like the in-process bus's subscribe. */
function fakeBus() {
  let listener: ((event: BusEvent) => Promise<void>) | undefined;
  return {
    subscribe: (next: (event: BusEvent) => Promise<void>) => {
      listener = next;
      return () => (listener = undefined);
    },
    publish: (id: string) => listener?.({ id, type: 'custom.x', source: 'api', userId: 'usr_1' }),
  };
}

const report = { matched: 0, executed: 0, duplicates: 0, skipped: 0, refused: 0 };
const dispatcherOf = (handle: (event: Record<string, unknown>) => Promise<typeof report>) => () => ({ handle });

afterEach(() => {
  vi.useRealTimers();
});

describe('local bus rules: each consumer behind the in-process bus', () => {
  it('retries a failed event with backoff until it goes through', async () => {
    // Prepare
    vi.useFakeTimers();
    const bus = fakeBus();
    let attempts = 0;
    const detach = attachBusRule(
      bus.subscribe,
      dispatcherOf(async () => {
        attempts++;
        if (attempts < 3) throw new Error('DynamoDB unreachable');
        return report;
      }),
      8,
    );
    // Act
    // The subscription settles once the event is handled: only after its retries.
    const delivered = bus.publish('evt_1');
    await vi.advanceTimersByTimeAsync(retryDelaysMs[0]! + retryDelaysMs[1]!);
    await delivered;
    // Assess
    expect(attempts).toBe(3);
    detach();
  });

  it('gives up after the last retry', async () => {
    // Prepare
    vi.useFakeTimers();
    const bus = fakeBus();
    let attempts = 0;
    const detach = attachBusRule(
      bus.subscribe,
      dispatcherOf(async () => {
        attempts++;
        throw new Error('always failing');
      }),
      8,
    );
    // Act
    const delivered = bus.publish('evt_1');
    await vi.advanceTimersByTimeAsync(retryDelaysMs.reduce((sum, delay) => sum + delay, 0) * 2);
    // Dead-lettered: the subscription settles too.
    await delivered;
    // Assess
    expect(attempts).toBe(retryDelaysMs.length + 1);
    detach();
  });

  it('dispatches as many events at a time as the consumer declares and every one of them in the end', async () => {
    // Prepare
    const bus = fakeBus();
    let active = 0;
    let peak = 0;
    const handled: unknown[] = [];
    const detach = attachBusRule(
      bus.subscribe,
      dispatcherOf(async (event) => {
        active++;
        peak = Math.max(peak, active);
        await new Promise((resolve) => setImmediate(resolve));
        active--;
        handled.push(event.id);
        return report;
      }),
      8,
    );
    // Act
    for (let index = 0; index < 50; index++) await bus.publish(`evt_${index}`);
    while (handled.length < 50) await new Promise((resolve) => setImmediate(resolve));
    // Assess
    expect(peak).toBeLessThanOrEqual(8);
    expect(new Set(handled).size).toBe(50);
    detach();
  });
});
