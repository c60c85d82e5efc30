// Not an HTTP route: the Lambda target of the platform bus's flows rule. A thrown error makes EventBridge and
// Lambda retry the event (the delivery ledger keeps retries from running a flow twice).
import type { EventBridgeEvent } from 'aws-lambda';
import { logger } from '#platform/logger.js';
import { flowEventConsumer } from '../wiring.js';

export const handler = async (event: EventBridgeEvent<string, Record<string, unknown>>) => {
  const report = await flowEventConsumer().handle(event.detail);
  if (report.matched) logger.info('flows run', { type: event['detail-type'], eventId: event.detail.id, ...report });
  return report;
};
