// Local stand-in for an EventBridge rule and its Lambda target, one per bus consumer (the trigger pipeline's rules):
// every matching event on the in-process bus goes to the consumer, as many at a time as the consumer declares (as
// its Lambda's concurrency would), a failed attempt is retried with backoff (the ledger keeps retries from running a
// target twice), and an event that still fails is dead-lettered to the log.
import { logger } from '#platform/logger.js';
import type { PlatformEventInput } from '#platform/ports.js';

type BusEvent = PlatformEventInput & { id: string };
type Subscribe = (listener: (event: BusEvent) => Promise<void>) => () => void;

export const retryDelaysMs = [1_000, 5_000, 15_000, 60_000];

/** Subscribes a bus consumer; returns what detaches it and drops pending work. */
export function attachBusRule(subscribe: Subscribe, consumer: () => { handle(event: BusEvent): Promise<unknown> }, maxConcurrent: number): () => void {
  const timers = new Set<NodeJS.Timeout>();
  const waiting: Array<{ event: BusEvent; retry: number }> = [];
  let running = 0;
  let detached = false;

  function retryLater(event: BusEvent, retry: number, error: unknown) {
    const delay = retryDelaysMs[retry];
    if (delay === undefined) {
      logger.error('event dead-lettered after its retries', { eventId: event.id, type: event.type, error: String(error) });
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      enqueue(event, retry + 1);
    }, delay);
    timer.unref();
    timers.add(timer);
  }

  function pump() {
    while (!detached && running < maxConcurrent && waiting.length) {
      const { event, retry } = waiting.shift()!;
      running++;
      consumer()
        .handle(event)
        .catch((error: unknown) => detached || retryLater(event, retry, error))
        .finally(() => {
          running--;
          pump();
        });
    }
  }

  function enqueue(event: BusEvent, retry: number) {
    waiting.push({ event, retry });
    pump();
  }

  const unsubscribe = subscribe(async (event) => enqueue(event, 0));
  return () => {
    detached = true;
    unsubscribe();
    waiting.length = 0;
    for (const timer of timers) clearTimeout(timer);
    timers.clear();
  };
}
