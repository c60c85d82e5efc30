// Local stand-in for an EventBridge rule and its Lambda target, one per bus consumer (the trigger pipeline's rules):
// every matching event on the in-process bus goes to the consumer, as many at a time as the consumer declares (as
// its Lambda's concurrency would), a failed attempt is retried with backoff (the ledger keeps retries from running a
// target twice), and an event that still fails is dead-lettered to the log. The subscription settles once the event
// was handled or dead-lettered, so a delivery that must survive a crash (a one-time firing) is let go only then.
import { logger } from '#platform/logger.js';
import type { PlatformEventInput } from '#platform/ports.js';

type BusEvent = PlatformEventInput & { id: string };
type Subscribe = (listener: (event: BusEvent) => Promise<void>) => () => void;

export const retryDelaysMs = [1_000, 5_000, 15_000, 60_000];

/** Subscribes a bus consumer; returns what detaches it and drops pending work. */
export function attachBusRule(subscribe: Subscribe, consumer: () => { handle(event: BusEvent): Promise<unknown> }, maxConcurrent: number): () => void {
  const timers = new Set<NodeJS.Timeout>();
  const waiting: Array<{ event: BusEvent; retry: number; handled: () => void }> = [];
  let running = 0;
  let detached = false;

  function retryLater(event: BusEvent, retry: number, handled: () => void, error: unknown) {
    const delay = retryDelaysMs[retry];
    if (delay === undefined) {
      logger.error('event dead-lettered after its retries', { eventId: event.id, type: event.type, error: String(error) });
      handled();
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      enqueue(event, retry + 1, handled);
    }, delay);
    timer.unref();
    timers.add(timer);
  }

  function pump() {
    while (!detached && running < maxConcurrent && waiting.length) {
      const { event, retry, handled } = waiting.shift()!;
      running++;
      consumer()
        .handle(event)
        .then(handled, (error: unknown) => detached || retryLater(event, retry, handled, error))
        .finally(() => {
          running--;
          pump();
        });
    }
  }

  function enqueue(event: BusEvent, retry: number, handled: () => void) {
    waiting.push({ event, retry, handled });
    pump();
  }

  const unsubscribe = subscribe((event) => new Promise<void>((handled) => enqueue(event, 0, handled)));
  return () => {
    detached = true;
    unsubscribe();
    waiting.length = 0;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };
}
