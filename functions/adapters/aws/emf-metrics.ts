// Metrics as CloudWatch embedded metric format log lines (Powertools Metrics). Each point is written at once with its
// own dimensions, so no handler has to flush a batch, and a point's dimensions never leak into another's.
import { Metrics, MetricUnit as Unit } from '@aws-lambda-powertools/metrics';
import type { MetricsPort } from '#platform/ports.js';
import { settings } from '#platform/settings.js';

const namespace = 'Platform';
let metrics: Metrics | undefined;

export const emfMetrics: MetricsPort = {
  record(name, unit, value, dimensions = {}) {
    metrics ??= new Metrics({ namespace, serviceName: settings.serviceName });
    const point = metrics.singleMetric();
    for (const [key, dimension] of Object.entries(dimensions)) point.addDimension(key, dimension);
    point.addMetric(name, Unit[unit], value);
  },
};
