// A metrics port that keeps its points, for tests that check what a service measured.
import type { MetricUnit, MetricsPort } from '../../functions/platform/ports.js';

export interface MetricPoint {
  name: string;
  unit: MetricUnit;
  value: number;
  dimensions?: Record<string, string>;
}

export function recordingMetrics(): MetricsPort & { points: MetricPoint[] } {
  const points: MetricPoint[] = [];
  return { points, record: (name, unit, value, dimensions) => void points.push({ name, unit, value, ...(dimensions && { dimensions }) }) };
}
