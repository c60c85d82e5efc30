// Local background work (document processing, payouts, long runs): after the request, in the same process, as on AWS
// a separate invocation would. Shutdown waits for jobs in flight so DynamoDB Local is not stopped under a
// half-written record, but not for a parser: it stops the document extractions first, so the wait is bounded.
import { ExtractionError } from '#functions/documents/extract.js';
import { stopExtractions } from '#functions/documents/extract-worker.js';
import { logger } from '#platform/logger.js';
import type { BackgroundRuns } from '#platform/ports.js';
import { onLocalShutdown } from './lifecycle.js';

const shutdownRefusal = new ExtractionError('processing was stopped by a shutdown of the platform; upload the file again');

/** A run goes on in this process after the answer; whoever waits gets its outcome through `ended`. */
export function createBackgroundRuns<J, R>(run: (job: J) => Promise<R>, what = 'background run'): BackgroundRuns<J, R> {
  const inFlight = new Set<Promise<unknown>>();
  let registered = false;
  function enqueue(job: J): Promise<R> {
    if (!registered) {
      registered = true;
      onLocalShutdown(async () => {
        await stopExtractions(shutdownRefusal, () => Promise.allSettled([...inFlight]));
        registered = false;
      });
    }
    const ended = new Promise<void>((resolve) => setImmediate(resolve)).then(() => run(job));
    // A job's data may be a user's run input: the log names the kind of work, not the job.
    const tracked = ended
      .catch((error: unknown) => logger.error(`${what} failed`, { error: (error as Error).message }))
      .finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    return ended;
  }
  return { start: async (job) => ({ ended: enqueue(job), detached: true }) };
}
