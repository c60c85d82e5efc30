// Background jobs of this process's mode: the function invoking itself on AWS.
import { createLambdaBackgroundRuns } from '#adapters/aws/lambda-self-invoke.js';
import { envNames } from '#platform/env-names.js';
import type { BackgroundRuns } from '#platform/ports.js';
import { readEnv } from '#platform/settings.js';
import { localAdapters } from './platform.js';

/**
 * `run` runs one job (a long run, a document's processing): locally in the background of this process, on AWS in the
 * function invoked with it (its handler wrapped in withBackgroundRuns).
 */
export const backgroundRuns = <J, R>(run: (job: J) => Promise<R>): BackgroundRuns<J, R> =>
  process.env.PLATFORM_MODE === 'local' ? localAdapters().backgroundRuns(run) : createLambdaBackgroundRuns(run, {}, readEnv(envNames.lambdaFunctionName));
