// Local-mode services that hold processes or timers (script pools, schedulers, the Solana bank)
// register here, and `startPlatform().stop()` stops them in reverse order, each waited for a bounded time: a stop
// must end whatever is queued (npm start exits within 10 s of SIGTERM), and one service still draining its work
// must not keep the next from killing its processes.
import { logger } from '#platform/logger.js';

type Stopper = () => Promise<void> | void;

const stoppers: Stopper[] = [];

export function onLocalShutdown(stop: Stopper): void {
  stoppers.push(stop);
}

/**
 * A local service started on first use and stopped, then forgotten, when the local platform stops: a platform
 * restarted in the same process starts it afresh. The first use's arguments (the start's settings) start it.
 */
export function startedOnFirstUse<T, A extends unknown[] = []>(start: (...args: A) => T, stop: (service: T) => Promise<void> | void): (...args: A) => T {
  let running: T | undefined;
  return (...args) => {
    if (running === undefined) {
      const service = start(...args);
      running = service;
      onLocalShutdown(async () => {
        if (running === service) running = undefined;
        await stop(service);
      });
    }
    return running;
  };
}

/** The longest one service's stop is waited for; what it still waits for (work in flight) is cut off. */
export const serviceStopBoundMs = 3_000;

/** Resolves true when `work` settles within `ms` (a failure is logged), false otherwise: the work goes on unwaited. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), Math.max(0, ms))));
  const settled = work.then(
    () => true as const,
    (error: unknown) => {
      logger.error('a local service failed to stop', { error: (error as Error).message });
      return true as const;
    },
  );
  try {
    return await Promise.race([settled, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** Stops every service, newest first, each waited for at most serviceStopBoundMs and none past `deadline`. */
export async function stopLocalServices(deadline = Number.POSITIVE_INFINITY): Promise<void> {
  while (stoppers.length) {
    const stop = stoppers.pop()!;
    const bound = Math.min(serviceStopBoundMs, deadline - Date.now());
    if (!(await settlesWithin(Promise.resolve().then(stop), bound))) logger.warn('a local service did not stop in time: shutting down without waiting for it');
  }
}
