// On AWS a large upload is processed by the same function invoked again asynchronously with a job event
// (adapters/aws/lambda-self-invoke.ts); this wrapper tells such an event from an HTTP one.
import type { Context } from 'aws-lambda';
import type { HttpEvent, HttpResult } from '#platform/http.js';
import { isDocumentJob } from './ports.js';

type Http = ((event: HttpEvent, context: Context) => Promise<HttpResult>) & { route: unknown };

export function withDocumentJobs<H extends Http>(http: H, process: (documentId: string) => Promise<unknown>) {
  const handler = async (event: unknown, context: Context) =>
    isDocumentJob(event) ? process(event.documentJob.documentId) : http(event as HttpEvent, context);
  return Object.assign(handler, { route: http.route as H['route'] });
}
