// Running one event's deliveries to one kind of target a few at a time, for the trigger pipeline.
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
  /** The kind of target, named in the failures. */
  kind: string,
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
        logger.error('one of the deliveries failed; the event will be retried', { kind, deliveryId: delivery.deliveryId, error: String(error) });
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, deliveries.length) }, worker));
  if (failures.length) throw new AggregateError(failures, `${failures.length} of ${deliveries.length} deliveries failed (${kind})`);
  return report;
}

/** Work in named lanes, at most `limit` at once per lane; the rest wait in arrival order. Idle lanes are dropped. */
export function createLanes() {
  const lanes = new Map<string, { running: number; waiting: Array<() => void> }>();
  return {
    async run<T>(key: string, limit: number, work: () => Promise<T>): Promise<T> {
      let lane = lanes.get(key);
      if (!lane) lanes.set(key, (lane = { running: 0, waiting: [] }));
      // A finished piece of work hands its place straight to the next in line.
      if (lane.running >= limit) await new Promise<void>((turn) => lane.waiting.push(turn));
      else lane.running++;
      try {
        return await work();
      } finally {
        const next = lane.waiting.shift();
        if (next) next();
        else if (--lane.running === 0) lanes.delete(key);
      }
    },
  };
}
