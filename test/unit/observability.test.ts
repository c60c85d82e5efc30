import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { emfMetrics } from '../../functions/adapters/aws/emf-metrics.js';
import { NotFoundError } from '../../functions/platform/errors.js';
import { errorResult } from '../../functions/platform/middlewares/envelope.js';
import { observeOperation, operationMetrics } from '../../functions/platform/middlewares/observe.js';
import type { HttpEvent, HttpResult } from '../../functions/platform/middlewares/request-state.js';
import type { MetricsPort } from '../../functions/platform/ports.js';
import { defineRoutes } from '../../functions/platform/route.js';
import { httpEvent } from '../support/lambda-event.js';
import { recordingMetrics } from '../support/metrics.js';

const routes = defineRoutes('test', { readThing: { method: 'GET', path: '/things', auth: 'public', summary: 'read' } });

/** A handler stack as httpHandler builds it: observe outside, the error envelope inside; the clock moves 12 ms per request. */
function observed(metrics: MetricsPort, answer: () => Promise<HttpResult>) {
  let clock = 1_000;
  const now = () => (clock += 6);
  return middy<HttpEvent, HttpResult>()
    .use(observeOperation(routes.readThing, () => metrics, now))
    .use({ onError: async (request) => void (request.response = errorResult(request.error, 'req_1')) })
    .handler(answer);
}

const call = (handler: ReturnType<typeof observed>) => handler(httpEvent({ method: 'GET', path: '/things' }), {} as Context);

describe('observeOperation', () => {
  it('records latency, no error and no rejection for an answered request', async () => {
    // Prepare
    const metrics = recordingMetrics();
    // Act
    await call(observed(metrics, async () => ({ statusCode: 200, body: '{}' })));
    // Assess
    const dimensions = { operation: 'readThing' };
    expect(metrics.points).toEqual([
      { name: operationMetrics.latency, unit: 'Milliseconds', value: 6, dimensions },
      { name: operationMetrics.errors, unit: 'Count', value: 0, dimensions },
      { name: operationMetrics.rejections, unit: 'Count', value: 0, dimensions },
    ]);
  });

  it('counts a named error as a rejection with the status of its envelope', async () => {
    // Prepare
    const metrics = recordingMetrics();
    // Act
    const result = await call(observed(metrics, async () => Promise.reject(new NotFoundError('thingId', 'thg_1', 'thing'))));
    // Assess
    expect(result.statusCode).toBe(404);
    expect(metrics.points.map((point) => [point.name, point.value])).toEqual([
      [operationMetrics.latency, 6],
      [operationMetrics.errors, 0],
      [operationMetrics.rejections, 1],
    ]);
  });

  it('counts an unexpected failure as an error', async () => {
    // Prepare
    const metrics = recordingMetrics();
    // Act
    const result = await call(observed(metrics, async () => Promise.reject(new Error('boom'))));
    // Assess
    expect(result.statusCode).toBe(500);
    expect(metrics.points.find((point) => point.name === operationMetrics.errors)?.value).toBe(1);
  });
});

describe('emfMetrics', () => {
  afterEach(() => vi.restoreAllMocks());

  it('writes each point as one embedded-metric-format line with its own dimensions', () => {
    // Prepare
    const lines: string[] = [];
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      lines.push(String(chunk));
      return true;
    });
    // Act
    emfMetrics.record('ScriptRuns', 'Count', 1, { status: 'success' });
    emfMetrics.record('ScriptRunCost', 'NoUnit', 0.25);
    // Assess
    const documents = lines
      .flatMap((line) => line.split('\n'))
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(documents).toHaveLength(2);
    expect(documents[0]).toMatchObject({
      ScriptRuns: 1,
      status: 'success',
      _aws: { CloudWatchMetrics: [{ Namespace: 'Platform', Metrics: [{ Name: 'ScriptRuns', Unit: 'Count' }] }] },
    });
    expect(documents[1]).toMatchObject({ ScriptRunCost: 0.25, _aws: { CloudWatchMetrics: [{ Metrics: [{ Name: 'ScriptRunCost', Unit: 'None' }] }] } });
    expect(documents[1]).not.toHaveProperty('status');
  });
});
