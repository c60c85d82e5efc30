// What the script dispatcher and the flows' bus consumer share: running one event's deliveries a few at a time.
import { logger } from '#platform/logger.js';
import type { DeliveryOutcome } from './ports.js';

export interface DispatchReport {
  matched: number;
  executed: number;
  /** Deliveries an earlier attempt already made (or is making). */
  duplicates: number;
  /** Not run: script or flow gone, not deployed, schedule or webhook disabled or removed. */
  skipped: number;
  /** Refused by limits (daily executions, cost, budget). */
  refused: number;
}

export const emptyReport = (): DispatchReport => ({ matched: 0, executed: 0, duplicates: 0, skipped: 0, refused: 0 });

/**
 * Runs every delivery, at most `concurrency` at once, and counts the outcomes; infrastructure failures are
 * rethrown together after all have run, so the bus retries the event and the ledger skips what already ran.
 */
export async function deliverAll<D extends { deliveryId: string }>(
  deliveries: D[],
  concurrency: number,
  deliver: (delivery: D) => Promise<DeliveryOutcome | 'duplicate'>,
  /** How the failures are named: `deliveries`, `flow deliveries`. */
  label: string,
): Promise<DispatchReport> {
  const report = { ...emptyReport(), matched: deliveries.length };
  const failures: unknown[] = [];
  let next = 0;
  const worker = async () => {
    while (next < deliveries.length) {
      const delivery = deliveries[next++]!;
      try {
        const outcome = await deliver(delivery);
        if (outcome === 'duplicate') report.duplicates++;
        else report[outcome.result]++;
      } catch (error) {
        logger.error(`one of the ${label} failed; the event will be retried`, { deliveryId: delivery.deliveryId, error: String(error) });
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, deliveries.length) }, worker));
  if (failures.length) throw new AggregateError(failures, `${failures.length} of ${deliveries.length} ${label} failed`);
  return report;
}
