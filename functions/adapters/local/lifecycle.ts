// Local-mode services that hold processes or timers (script pools, schedulers, the Solana bank)
// register here, and `startPlatform().stop()` stops them in reverse order.

type Stopper = () => Promise<void> | void;

const stoppers: Stopper[] = [];

export function onLocalShutdown(stop: Stopper): void {
  stoppers.push(stop);
}

export async function stopLocalServices(): Promise<void> {
  while (stoppers.length) await stoppers.pop()!();
}
