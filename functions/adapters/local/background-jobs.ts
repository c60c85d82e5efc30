// Local background work (document processing, payouts, long runs): after the request, in the same process, as on AWS
// a separate invocation would. Shutdown waits for jobs in flight so DynamoDB Local is not stopped under a
// half-written record, but not for a parser: it stops the document extractions first, so the wait is bounded.
import { ExtractionError } from '#functions/documents/extract.js';
import { stopExtractions } from '#functions/documents/extract-worker.js';
import type { DocumentJobs } from '#functions/documents/ports.js';
import { logger } from '#platform/logger.js';
import type { BackgroundRuns } from '#platform/ports.js';
import { onLocalShutdown } from './lifecycle.js';

const shutdownRefusal = new ExtractionError('processing was stopped by a shutdown of the platform; upload the file again');

function createJobQueue<J, R>(run: (job: J) => Promise<R>, what: string) {
  const inFlight = new Set<Promise<unknown>>();
  let registered = false;
  return (job: J): Promise<R> => {
    if (!registered) {
      registered = true;
      onLocalShutdown(async () => {
        await stopExtractions(shutdownRefusal, () => Promise.allSettled([...inFlight]));
        registered = false;
      });
    }
    const ended = new Promise<void>((resolve) => setImmediate(resolve)).then(() => run(job));
    const tracked = ended
      .catch((error: unknown) => logger.error(`${what} failed`, { job: typeof job === 'string' ? job : undefined, error: (error as Error).message }))
      .finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    return ended;
  };
}

export function createBackgroundJobs(run: (documentId: string) => Promise<void>, what = 'document processing'): DocumentJobs {
  const enqueue = createJobQueue(run, what);
  return {
    async enqueue(documentId) {
      void enqueue(documentId);
    },
  };
}

/** A run goes on in this process after the answer; whoever waits gets its outcome through `ended`. */
export function createBackgroundRuns<J, R>(run: (job: J) => Promise<R>): BackgroundRuns<J, R> {
  const enqueue = createJobQueue(run, 'background run');
  return { start: async (job) => ({ ended: enqueue(job), detached: true }) };
}
