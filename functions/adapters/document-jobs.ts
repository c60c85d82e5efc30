import { settings } from '#platform/settings.js';
import type { DocumentJobs } from '#functions/documents/ports.js';
import { createLambdaSelfInvoke } from './aws/lambda-self-invoke.js';
import { createBackgroundJobs } from './local/background-jobs.js';

/** `run` processes one document; locally it is called in the background, on AWS by the invoked function itself. */
export const documentJobs = (run: (documentId: string) => Promise<void>): DocumentJobs =>
  settings.mode === 'local' ? createBackgroundJobs(run) : createLambdaSelfInvoke();
