import * as z from 'zod';
import { IsoDate, OpaqueId, componentRef, pagination } from '#platform/schemas.js';
import { documentConditionTree } from './conditions/schema.js';
import { scriptDialect } from './conditions/script-dialect.js';
import { dateRange, ordered, orderedRange } from '#platform/date-range.js';
import { SubscribableEventType } from '#platform/event-types.js';

const ScriptId = OpaqueId;
const SubscriptionId = OpaqueId;

/**
 * Conditions are checked by the condition engine (operators, value types, depth, and the 50-condition count, which it
 * reports as `{field: 'conditions.50', value: 51}` wherever the 51st sits); here only their container.
 */
documentConditionTree(
  'SubscriptionCondition',
  scriptDialect,
  'A subscription condition: a leaf {field, operator, value} or a group {operator: and | or, conditions: condition[]}; the list of them is combined with AND. Operators take both spellings (starts_with or startsWith).',
);
const Condition = z.unknown().meta(componentRef('SubscriptionCondition'));
const Conditions = z.array(Condition);

export const PublishedEvent = z.object({ eventId: z.string() });

export const CreateSubscriptionInput = z.strictObject({
  scriptId: ScriptId,
  eventType: SubscribableEventType,
  conditions: Conditions.default([]),
  enabled: z.boolean().default(true),
});

export const SubscriptionPath = z.strictObject({ scriptId: ScriptId, subscriptionId: SubscriptionId });

export const ListSubscriptionsInput = z.strictObject({ scriptId: ScriptId, ...pagination(10) });

export const UpdateSubscriptionInput = z
  .strictObject({ scriptId: ScriptId, subscriptionId: SubscriptionId, enabled: z.boolean().optional(), conditions: Conditions.optional() })
  .refine((input) => input.enabled !== undefined || input.conditions !== undefined, { message: 'give enabled, conditions or both', path: ['enabled'] });

export const CreatedSubscription = z.object({ subscriptionId: z.string(), eventType: z.string(), enabled: z.boolean(), createdAt: IsoDate });

export const Subscription = z.object({
  subscriptionId: z.string(),
  eventType: z.string(),
  conditions: z.array(Condition),
  enabled: z.boolean(),
  createdAt: IsoDate,
  updatedAt: IsoDate,
});
export type Subscription = z.infer<typeof Subscription>;

export const SubscriptionList = z.object({ subscriptions: z.array(Subscription), total: z.number(), limit: z.number(), offset: z.number() });

const Name = z.string().trim().min(1).max(200);

export const CreateWebhookInput = z.strictObject({ scriptId: ScriptId, name: Name, enabled: z.boolean().default(true) });

export const CreatedWebhook = z.object({ scriptId: z.string(), webhookUrl: z.string(), webhookSecret: z.string(), name: z.string(), enabled: z.boolean() });

export const CreateScheduleInput = z.strictObject({
  scriptId: ScriptId,
  name: Name,
  // parseCron gives the precise field and value; the schema only insists on a string.
  cronExpression: z.string().max(200),
  enabled: z.boolean().default(true),
  data: z.record(z.string(), z.unknown()).default({}),
});

export const CreatedSchedule = z.object({ scheduleId: z.string(), scriptId: z.string(), name: z.string(), cronExpression: z.string(), enabled: z.boolean() });

export const ReceiveWebhookInput = z.object({ webhookId: OpaqueId });

export const AcceptedWebhook = z.object({ deliveryId: z.string() });

/** Offsets are for browsing the newest events; past this a date range narrows the query instead. */
export const maxHistoryOffset = 1000;

export const ListEventsInput = z
  .strictObject({
    type: z.string().min(1).max(100).optional(),
    source: z.string().min(1).max(100).optional(),
    ...dateRange,
    ...pagination(20),
    offset: z.coerce.number().int().min(0).max(maxHistoryOffset).default(0),
  })
  .refine(ordered, orderedRange);

const HistoryDelivery = z.object({
  subscriptionId: z.string().nullable().describe('null when the event resumed a waiting run (see wait)'),
  scriptId: z.string().nullable(),
  wait: z.string().optional().describe('the name of the waitForEvent wait of the run `executionId` that the event resumed'),
  result: z
    .enum(['executed', 'skipped', 'refused'])
    .describe('executed: the script ran (see status); skipped: script gone, not deployed or no longer yours; refused: a limit said no (see code)'),
  executionId: z.string().nullable().describe('the run, for getExecution and GET /api/sdk/v1/executions'),
  status: z.string().nullable(),
  code: z.string().nullable(),
  reason: z.string().nullable(),
  at: IsoDate,
});

export const EventHistoryPage = z.object({
  events: z.array(
    z.object({
      eventId: z.string(),
      type: z.string(),
      source: z.string(),
      timestamp: IsoDate,
      event: z.record(z.string(), z.unknown()).describe('the event object as scripts received it, before enrichment'),
      deliveries: z
        .array(HistoryDelivery)
        .describe(
          'one per subscription whose conditions matched and per waiting run the event resumed, oldest first; empty while none ran yet or none matched',
        ),
    }),
  ),
  limit: z.number().int(),
  offset: z.number().int(),
  hasMore: z.boolean(),
});
