// Local document processing: after the request, in the same process, as on AWS a separate invocation would.
// Shutdown waits for jobs in flight so DynamoDB Local is not stopped under a half-written document.
import type { DocumentJobs } from '#functions/documents/ports.js';
import { logger } from '#platform/logger.js';
import { onLocalShutdown } from './lifecycle.js';

export function createBackgroundJobs(run: (documentId: string) => Promise<void>): DocumentJobs {
  const inFlight = new Set<Promise<void>>();
  let registered = false;
  return {
    async enqueue(documentId) {
      if (!registered) {
        registered = true;
        onLocalShutdown(async () => {
          await Promise.allSettled([...inFlight]);
          registered = false;
        });
      }
      const job = new Promise<void>((resolve) => setImmediate(resolve))
        .then(() => run(documentId))
        .catch((error: unknown) => logger.error('document processing failed', { documentId, error: (error as Error).message }))
        .finally(() => inFlight.delete(job));
      inFlight.add(job);
    },
  };
}
