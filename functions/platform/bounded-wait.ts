// Answering a run synchronously while it ends within the bound: the run's own promise when
// it runs in this process, else its record, read again with growing pauses until it ends or the bound passes.
import type { StartedRun } from './ports.js';

export type Waited<R> = { ended: true; value: R } | { ended: false };

export interface BoundedWaitOptions<R> {
  started: StartedRun<R>;
  /** Reads the run's end from its record: undefined while it runs. */
  read: () => Promise<R | undefined>;
  boundMs: number;
  /** Injectable so unit tests drive time instead of waiting for it. */
  pause?: (ms: number) => Promise<void>;
  now?: () => number;
}

// Unreferenced: a run still awaited at shutdown does not hold the process for the rest of its bound.
const realPause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

export async function waitBounded<R>(options: BoundedWaitOptions<R>): Promise<Waited<R>> {
  const { started, boundMs } = options;
  const pause = options.pause ?? realPause;
  const now = options.now ?? Date.now;
  if (started.ended && !started.detached) return { ended: true, value: await started.ended };
  if (started.ended)
    return Promise.race([started.ended.then((value) => ({ ended: true as const, value })), pause(boundMs).then(() => ({ ended: false as const }))]);
  const deadline = now() + boundMs;
  for (let interval = 25; ; interval = Math.min(interval * 2, 500)) {
    const value = await options.read();
    if (value !== undefined) return { ended: true, value };
    if (now() >= deadline) return { ended: false };
    await pause(Math.min(interval, Math.max(0, deadline - now())));
  }
}
