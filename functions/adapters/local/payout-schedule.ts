// Local mode's payout schedule (EventBridge's rate rule on AWS): every PAYOUT_INTERVAL_SECONDS, pays every owed entry.
import { logger } from '#platform/logger.js';
import { startedOnFirstUse } from './lifecycle.js';

/** `run` is the payments area's payout run, given by the composition root: an adapter knows no area. */
export const localPayoutSchedule = startedOnFirstUse(
  (intervalSeconds: number, run: () => Promise<unknown>) => {
    if (intervalSeconds === 0) return undefined;
    const timer = setInterval(() => {
      run().catch((error: unknown) => logger.error('scheduled payout run failed', { error: (error as Error).message }));
    }, intervalSeconds * 1000);
    timer.unref();
    return timer;
  },
  (timer) => clearInterval(timer),
);
