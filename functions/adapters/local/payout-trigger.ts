import { createBackgroundJobs } from './background-jobs.js';

/** Locally a payout run is asked for in the background of this process. */
export function backgroundPayoutTrigger(run: (ownerId: string, asset: string) => Promise<unknown>): (ownerId: string, asset: string) => Promise<void> {
  const jobs = createBackgroundJobs(async (key) => {
    const [ownerId, asset] = key.split(' ') as [string, string];
    await run(ownerId, asset);
  }, 'payout');
  return (ownerId, asset) => jobs.enqueue(`${ownerId} ${asset}`);
}
