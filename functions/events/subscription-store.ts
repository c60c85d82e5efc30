// Subscriptions live in `scriptSubscriptions` (by script, so a script with enabled
// subscriptions cannot be deleted) and, while enabled, in `subscriptionIndex` (by user and event type, for
// the dispatcher). Both items are written in one transaction, so the index never disagrees with the truth.
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, queryAll, tableName } from '#platform/dynamo.js';
import { createLocalLookups } from './local-lookups.js';
import type { ActiveSubscription, SubscriptionIndex } from './ports.js';

export interface StoredSubscription extends ActiveSubscription {
  enabled: boolean;
  createdAt: string;
}

export const dispatchKey = (userId: string, eventType: string) => `${userId}#${eventType}`;

/** Lookups kept in memory locally (see local-lookups.ts). */
const localLookups = createLocalLookups<ActiveSubscription[]>();
const forget = (subscription: StoredSubscription) => localLookups.forget(dispatchKey(subscription.userId, subscription.eventType));

function indexWrite(subscription: StoredSubscription) {
  const { subscriptionId, scriptId, userId, eventType, conditions, updatedAt } = subscription;
  const Key = { dispatchKey: dispatchKey(userId, eventType), subscriptionId };
  return subscription.enabled
    ? { Put: { TableName: tableName('subscriptionIndex'), Item: { ...Key, scriptId, userId, eventType, conditions, updatedAt } } }
    : { Delete: { TableName: tableName('subscriptionIndex'), Key } };
}

export function createSubscriptionStore() {
  const db = dynamo();
  const table = () => tableName('scriptSubscriptions');
  return {
    async create(subscription: StoredSubscription): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: table(), Item: subscription, ConditionExpression: 'attribute_not_exists(subscriptionId)' } },
            indexWrite(subscription),
          ],
        }),
      );
      forget(subscription);
    },

    async get(scriptId: string, subscriptionId: string): Promise<StoredSubscription | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { scriptId, subscriptionId }, ConsistentRead: true }));
      return Item as StoredSubscription | undefined;
    },

    /** Every subscription of a script (a script holds at most a hundred). */
    list(scriptId: string): Promise<StoredSubscription[]> {
      return queryAll<StoredSubscription>({
        TableName: table(),
        KeyConditionExpression: 'scriptId = :scriptId',
        ExpressionAttributeValues: { ':scriptId': scriptId },
        ConsistentRead: true,
      });
    },

    /** Optimistic: fails with a condition failure if the subscription changed since `current` was read. */
    async update(current: StoredSubscription, next: StoredSubscription): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: table(), Item: next, ConditionExpression: 'updatedAt = :seen', ExpressionAttributeValues: { ':seen': current.updatedAt } } },
            indexWrite(next),
          ],
        }),
      );
      forget(next);
    },

    async delete(subscription: StoredSubscription): Promise<void> {
      const { scriptId, subscriptionId } = subscription;
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Delete: { TableName: table(), Key: { scriptId, subscriptionId }, ConditionExpression: 'attribute_exists(subscriptionId)' } },
            indexWrite({ ...subscription, enabled: false }),
          ],
        }),
      );
      forget(subscription);
    },
  };
}

export type SubscriptionStore = ReturnType<typeof createSubscriptionStore>;

export function createSubscriptionIndex(options: { cached: boolean }): SubscriptionIndex {
  const query = (key: string) =>
    queryAll<ActiveSubscription>({
      TableName: tableName('subscriptionIndex'),
      KeyConditionExpression: 'dispatchKey = :key',
      ExpressionAttributeValues: { ':key': key },
      ConsistentRead: true,
    });
  return {
    active(userId, eventType) {
      const key = dispatchKey(userId, eventType);
      return options.cached ? localLookups.get(key, query) : query(key);
    },
  };
}
