import { createBackgroundRuns } from './background-jobs.js';

/** Locally a payout run is asked for in the background of this process. */
export function backgroundPayoutTrigger(run: (ownerId: string, asset: string) => Promise<unknown>): (ownerId: string, asset: string) => Promise<void> {
  const payouts = createBackgroundRuns((job: { ownerId: string; asset: string }) => run(job.ownerId, job.asset), 'payout');
  return async (ownerId, asset) => void (await payouts.start({ ownerId, asset }));
}
