// Local-mode services that hold processes or timers (script pools, schedulers, the Solana bank)
// register here, and `startPlatform().stop()` stops them in reverse order.

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

export async function stopLocalServices(): Promise<void> {
  while (stoppers.length) await stoppers.pop()!();
}
