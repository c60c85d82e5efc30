import type { TableDefinition } from '../platform/table-definition.js';

export const eventTables = {
  subscriptionIndex: {
    partitionKey: 'dispatchKey',
    sortKey: 'subscriptionId',
    description:
      'Enabled script subscriptions by `<userId>#<eventType>`, written in the same transaction as the subscription item in scriptSubscriptions; the dispatcher reads it with one consistent Query per event.',
  },
  eventDeliveries: {
    partitionKey: 'deliveryId',
    ttlAttribute: 'expiresAt',
    description:
      'One claim per (event, subscription), (schedule, minute) or webhook request: the conditional write that keeps a retried delivery from running a script twice.',
  },
  eventHistory: {
    partitionKey: 'userId',
    sortKey: 'historyKey',
    ttlAttribute: 'expiresAt',
    description:
      "A user's events (`<timestamp>#<eventId>`) and each delivery of one to a subscribed script (`<timestamp>#<eventId>#<subscriptionId>`), written by the dispatcher, kept 30 days.",
  },
  eventWaits: {
    partitionKey: 'waitKey',
    sortKey: 'waitId',
    ttlAttribute: 'retainUntil',
    description:
      'Durable runs waiting for an event (`waitForEvent`), by `<userId>#<eventType>` and `<executionId>#<name>`, with the conditions: the dispatcher reads the waits of an event with one Query, claims a matching one (`matchedEventId`), resumes the run and removes it.',
  },
  scriptWebhooks: {
    partitionKey: 'webhookId',
    description: 'Script webhooks: owner, script, name, enabled flag and the signing secret sealed by the credential vault.',
  },
  scriptSchedules: {
    partitionKey: 'scheduleId',
    description: 'Script schedules: owner, script, name, five-field cron, enabled flag and the data each run receives.',
  },
} as const satisfies Record<string, TableDefinition>;
