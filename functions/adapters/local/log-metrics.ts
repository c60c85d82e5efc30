// Locally a metric is a debug log line: visible with LOG_LEVEL=debug, silent otherwise.
import { logger } from '#platform/logger.js';
import type { MetricsPort } from '#platform/ports.js';

export const logMetrics: MetricsPort = {
  record(name, unit, value, dimensions) {
    logger.debug('metric', { metric: name, unit, value, ...(dimensions && { dimensions }) });
  },
};
