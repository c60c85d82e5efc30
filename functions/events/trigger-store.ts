// Script webhooks and schedules in DynamoDB. A webhook's secret is stored sealed by the credential vault
// and only opened to verify a request.
import { DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#platform/dynamo.js';
import type { SealedSecret } from '#platform/ports.js';
import type { ScheduleRecord, TriggerLookup, WebhookRecord } from './ports.js';

export interface StoredWebhook extends WebhookRecord {
  secret: SealedSecret;
}

export function createTriggerStore() {
  const db = dynamo();
  const getItem = async <T>(table: 'scriptWebhooks' | 'scriptSchedules', key: Record<string, string>) =>
    (await db.send(new GetCommand({ TableName: tableName(table), Key: key, ConsistentRead: true }))).Item as T | undefined;
  const putNew = (table: 'scriptWebhooks' | 'scriptSchedules', item: Record<string, unknown>, key: string) =>
    db.send(new PutCommand({ TableName: tableName(table), Item: item, ConditionExpression: `attribute_not_exists(${key})` }));

  return {
    putWebhook: async (webhook: StoredWebhook) => void (await putNew('scriptWebhooks', { ...webhook }, 'webhookId')),
    getStoredWebhook: (webhookId: string) => getItem<StoredWebhook>('scriptWebhooks', { webhookId }),
    async getWebhook(webhookId: string): Promise<WebhookRecord | undefined> {
      const stored = await getItem<StoredWebhook>('scriptWebhooks', { webhookId });
      if (!stored) return undefined;
      const { secret: _secret, ...record } = stored;
      return record;
    },
    putSchedule: async (schedule: ScheduleRecord) => void (await putNew('scriptSchedules', { ...schedule }, 'scheduleId')),
    getSchedule: (scheduleId: string) => getItem<ScheduleRecord>('scriptSchedules', { scheduleId }),
    deleteSchedule: async (scheduleId: string) => void (await db.send(new DeleteCommand({ TableName: tableName('scriptSchedules'), Key: { scheduleId } }))),
  } satisfies Omit<TriggerLookup, 'retireSchedule'> & Record<string, unknown>;
}

export type TriggerStore = ReturnType<typeof createTriggerStore>;
