// Local mode's payout schedule (EventBridge's rate rule on AWS): every PAYOUT_INTERVAL_SECONDS, pays every owed entry.
import { paymentSettings } from '#functions/payments/settings.js';
import { logger } from '#platform/logger.js';
import { startedOnFirstUse } from './lifecycle.js';

export const localPayoutSchedule = startedOnFirstUse(
  () => {
    const seconds = paymentSettings.localPayoutIntervalSeconds;
    if (seconds === 0) return undefined;
    const timer = setInterval(() => {
      import('#functions/payments/wiring.js')
        .then(({ payoutService }) => payoutService().run())
        .catch((error: unknown) => logger.error('scheduled payout run failed', { error: (error as Error).message }));
    }, seconds * 1000);
    timer.unref();
    return timer;
  },
  (timer) => clearInterval(timer),
);
