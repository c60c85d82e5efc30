// On AWS a route whose work may outlast the API (long runs) invokes its own function asynchronously with a job
// (adapters/aws/lambda-self-invoke.ts); this wrapper tells such an event from an HTTP one.
import type { Context } from 'aws-lambda';
import type { HttpEvent, HttpResult } from './http.js';
import { isBackgroundRun } from './ports.js';

type Http = ((event: HttpEvent, context: Context) => Promise<HttpResult>) & { route: unknown };

export function withBackgroundRuns<H extends Http, J>(http: H, runJob: (job: J) => Promise<unknown>) {
  const handler = async (event: unknown, context: Context) => (isBackgroundRun(event) ? runJob(event.backgroundRun as J) : http(event as HttpEvent, context));
  return Object.assign(handler, { route: http.route as H['route'] });
}
