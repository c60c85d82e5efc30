import { type TableAccess, defineRoutes } from '#platform/route.js';
import { Message } from '#platform/schemas.js';
import type { TableName } from '#platform/table-definition.js';
import { EventInput } from '#platform/event-object.js';
import {
  AcceptedWebhook,
  EventHistoryPage,
  ListEventsInput,
  CreateScheduleInput,
  CreateSubscriptionInput,
  CreateWebhookInput,
  CreatedSchedule,
  CreatedSubscription,
  CreatedWebhook,
  ListSubscriptionsInput,
  PublishedEvent,
  ReceiveWebhookInput,
  Subscription,
  SubscriptionList,
  SubscriptionPath,
  UpdateSubscriptionInput,
} from './schemas.js';

const subscriptions = '/api/sdk/v1/scripts/{scriptId}/subscriptions';
/** Reading a script's owner and deployment state (ScriptPort.describe). */
const scriptLookup = { scripts: 'read' } as const;
const subscriptionTables = { ...scriptLookup, scriptSubscriptions: 'write', subscriptionIndex: 'write' } as const;
/** Changing what makes a script run takes the same scope as changing the script. */
const manage = ['scripts:manage'];

export const eventRoutes = defineRoutes('events', {
  publishEvent: {
    method: 'POST',
    path: '/api/sdk/v1/events',
    auth: 'apiKey',
    summary: "Publish an event for the caller's user; delivered to subscribed scripts asynchronously",
    input: EventInput,
    output: PublishedEvent,
    successStatus: 202,
    idempotency: 'caller',
    uses: ['eventBus'],
  },
  listEvents: {
    method: 'GET',
    path: '/api/sdk/v1/events',
    auth: 'apiKey',
    summary: "The caller's events, newest first, each with its deliveries to subscribed scripts",
    description:
      'Every event published for the caller (over this API, by a webhook resource, or by another area), newest first by its timestamp, filtered by type, source and a date range (days in UTC or ISO instants). ' +
      'An event shows up once the dispatcher has received it, and each delivery once its script run ended; events are kept 30 days. Page with limit and offset (offset up to 1000; narrow with dates beyond).',
    input: ListEventsInput,
    output: EventHistoryPage,
    tables: { eventHistory: 'read' },
  },
  createSubscription: {
    method: 'POST',
    path: subscriptions,
    auth: 'apiKey',
    scopes: manage,
    summary: 'Subscribe a script to an event type, with optional conditions',
    input: CreateSubscriptionInput,
    output: CreatedSubscription,
    successStatus: 201,
    tables: subscriptionTables,
  },
  listSubscriptions: {
    method: 'GET',
    path: subscriptions,
    auth: 'apiKey',
    summary: "A script's event subscriptions",
    input: ListSubscriptionsInput,
    output: SubscriptionList,
    tables: { ...scriptLookup, scriptSubscriptions: 'read' },
  },
  updateSubscription: {
    method: 'PATCH',
    path: `${subscriptions}/{subscriptionId}`,
    auth: 'apiKey',
    scopes: manage,
    summary: 'Enable, disable or change the conditions of a subscription',
    input: UpdateSubscriptionInput,
    output: Subscription,
    tables: subscriptionTables,
  },
  deleteSubscription: {
    method: 'DELETE',
    path: `${subscriptions}/{subscriptionId}`,
    auth: 'apiKey',
    scopes: manage,
    summary: 'Delete a subscription',
    input: SubscriptionPath,
    output: Message,
    tables: subscriptionTables,
  },
  createWebhook: {
    method: 'POST',
    path: '/api/sdk/v1/scripts/createWebhook',
    auth: 'apiKey',
    scopes: manage,
    summary: 'A signed webhook URL that runs the script (secret shown once)',
    input: CreateWebhookInput,
    output: CreatedWebhook,
    tables: { ...scriptLookup, scriptWebhooks: 'write' },
    uses: ['credentialsKey'],
  },
  createSchedule: {
    method: 'POST',
    path: '/api/sdk/v1/scripts/createSchedule',
    auth: 'apiKey',
    scopes: manage,
    summary: 'Run the script on a five-field cron schedule (UTC)',
    input: CreateScheduleInput,
    output: CreatedSchedule,
    tables: { ...scriptLookup, scriptSchedules: 'write' },
    uses: ['scheduler', 'eventBus'],
  },
  receiveWebhook: {
    method: 'POST',
    path: '/api/webhooks/{webhookId}',
    auth: 'public',
    summary:
      'A signed webhook request (X-Webhook-Signature over the raw body, or with X-Webhook-Timestamp over "<timestamp>.<body>"); runs the script with the body',
    input: ReceiveWebhookInput,
    output: AcceptedWebhook,
    successStatus: 202,
    idempotency: 'webhookDelivery',
    tables: { scriptWebhooks: 'read' },
    uses: ['credentialsKey', 'eventBus'],
  },
});

/**
 * What the trigger pipeline's subscription kind needs of the bus consumer that runs it (functions/consumers.ts), beside
 * what running a script needs, which the consumer adds from the scripts' route table: the dispatch tables.
 */
export const subscriptionTargetNeeds = {
  tables: {
    subscriptionIndex: 'read',
    eventDeliveries: 'write',
    scriptWebhooks: 'read',
    scriptSchedules: 'write',
    eventHistory: 'write',
    eventWaits: 'write',
  } as Partial<Record<TableName, TableAccess>>,
  // The scheduler: a firing for a deleted script retires its schedule.
  uses: ['scheduler' as const],
};
