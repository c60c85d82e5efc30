// Not an HTTP route: the Lambda target of the platform bus's rules (functions/consumers.ts). A thrown error makes
// EventBridge and Lambda retry the event (the delivery ledger keeps retries from running a target twice), and
// after the last retry the event goes to the dead-letter queue.
import type { EventBridgeEvent } from 'aws-lambda';
import { logger } from '#platform/logger.js';
import { triggerPipeline } from '../trigger-pipeline.js';

export const handler = async (event: EventBridgeEvent<string, Record<string, unknown>>) => {
  const report = await triggerPipeline().handle(event.detail);
  logger.info('event delivered', { type: event['detail-type'], eventId: event.detail.id, ...report });
  return report;
};
