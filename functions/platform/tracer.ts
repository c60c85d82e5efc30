// X-Ray through Powertools: one tracer per process. Outside Lambda Powertools disables it, so local mode traces nothing.
import { Tracer } from '@aws-lambda-powertools/tracer';
import { settings } from './settings.js';

export const tracer = new Tracer({ serviceName: settings.serviceName });

/** An AWS SDK v3 client whose calls appear as subsegments of the function's trace. */
export const traced = <T>(client: T): T => tracer.captureAWSv3Client(client);
