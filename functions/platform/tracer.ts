// X-Ray through Powertools: one tracer per process, inside Lambda only. Outside a Lambda runtime Powertools traces
// nothing, and loading the X-Ray SDK alone installs an async hook that tracks the end of every promise: about a
// quarter of a local request's CPU. So local mode and tests do not load it at all.
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { settings } from './settings.js';

export const tracer: Tracer | undefined = settings.inLambda
  ? new (await import('@aws-lambda-powertools/tracer')).Tracer({ serviceName: settings.serviceName })
  : undefined;

/** An AWS SDK v3 client whose calls appear as subsegments of the function's trace. */
export const traced = <T>(client: T): T => (tracer ? tracer.captureAWSv3Client(client) : client);
