// Latency and errors per operation, recorded for every answer: the outermost middleware but the tracer's, so it sees
// the final status, whether the handler answered or the error envelope did.
import type { MiddlewareObj } from '@middy/core';
import type { MetricsPort } from '../ports.js';
import type { Route } from '../route.js';
import type { HttpEvent, HttpResult } from './request-state.js';

export const operationMetrics = { latency: 'OperationLatency', errors: 'OperationErrors', rejections: 'OperationRejections' } as const;

/** Records, per operation: the latency, a 5xx as an error and a 4xx as a rejection (each 0 or 1, so averages are rates). */
export function recordOperation(metrics: MetricsPort, route: Route, status: number, ms: number): void {
  const dimensions = { operation: route.operation };
  metrics.record(operationMetrics.latency, 'Milliseconds', ms, dimensions);
  metrics.record(operationMetrics.errors, 'Count', status >= 500 ? 1 : 0, dimensions);
  metrics.record(operationMetrics.rejections, 'Count', status >= 400 && status < 500 ? 1 : 0, dimensions);
}

export function observeOperation(
  route: Route,
  metrics: () => MetricsPort,
  now: () => number = performance.now.bind(performance),
): MiddlewareObj<HttpEvent, HttpResult> {
  const started = new WeakMap<HttpEvent, number>();
  const record = (event: HttpEvent, response: HttpResult | null | undefined) => {
    const from = started.get(event);
    if (from === undefined) return;
    started.delete(event);
    recordOperation(metrics(), route, response?.statusCode ?? 500, now() - from);
  };
  return {
    before: (request) => {
      started.set(request.event, now());
    },
    after: (request) => record(request.event, request.response),
    onError: (request) => record(request.event, request.response),
  };
}
