// The payout function: its schedule fires it with an EventBridge event (every owed entry is paid), a threshold
// crossing invokes it with `payoutRun` (one owner and asset, paid if still due).
import { logger } from '#platform/logger.js';
import type { PayoutRequest } from '#functions/payments/ports.js';
import { payoutService } from '../wiring.js';

export async function handler(event: Partial<PayoutRequest>) {
  const run = await payoutService().run(event.payoutRun && { ownerId: event.payoutRun.ownerId, asset: event.payoutRun.asset });
  logger.info('payout run', { paid: run.paid.length, failed: run.failed.length, reconciled: run.reconciled, unconfirmed: run.unconfirmed });
  return run;
}
