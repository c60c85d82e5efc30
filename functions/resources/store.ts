// DynamoDB access for resources and their version snapshots.
import { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, queryAll, tableName } from '#platform/dynamo.js';
import { updateExpression } from '#platform/update-expression.js';
import { ratingUpdate } from '#functions/reviews/api.js';
import type { ResourceItem, ResourceVersion } from './records.js';

export function createResourceStore() {
  const db = dynamo();
  const resources = () => tableName('resources');
  const versions = () => tableName('resourceVersions');

  return {
    ratingUpdate: (resourceId: string, rating: number) => ratingUpdate(resources(), { resourceId }, rating),

    async create(item: ResourceItem, snapshot: ResourceVersion): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: resources(), Item: item, ConditionExpression: 'attribute_not_exists(resourceId)' } },
            { Put: { TableName: versions(), Item: snapshot, ConditionExpression: 'attribute_not_exists(resourceId)' } },
          ],
        }),
      );
    },

    async get(resourceId: string): Promise<ResourceItem | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: resources(), Key: { resourceId }, ConsistentRead: true }));
      return Item as ResourceItem | undefined;
    },

    /** Up to 100 resources by id, in one round trip (plus retries of what DynamoDB left unprocessed). */
    async getMany(resourceIds: string[]): Promise<Map<string, ResourceItem>> {
      const found = new Map<string, ResourceItem>();
      let keys = [...new Set(resourceIds)].map((resourceId) => ({ resourceId }));
      while (keys.length) {
        const { Responses, UnprocessedKeys } = await db.send(new BatchGetCommand({ RequestItems: { [resources()]: { Keys: keys } } }));
        for (const item of (Responses?.[resources()] ?? []) as ResourceItem[]) found.set(item.resourceId, item);
        keys = (UnprocessedKeys?.[resources()]?.Keys ?? []) as Array<{ resourceId: string }>;
      }
      return found;
    },

    async getVersion(resourceId: string, version: number): Promise<ResourceVersion | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: versions(), Key: { resourceId, version } }));
      return Item as ResourceVersion | undefined;
    },

    /** Newest first. */
    listByOwner: (ownerId: string) =>
      queryAll<ResourceItem>({
        TableName: resources(),
        IndexName: 'byOwner',
        KeyConditionExpression: 'ownerId = :ownerId',
        ExpressionAttributeValues: { ':ownerId': ownerId },
        ScanIndexForward: false,
      }),

    /** The published set, newest first, from the sparse index (drafts are not in it). */
    listPublished: () =>
      queryAll<ResourceItem>({
        TableName: resources(),
        IndexName: 'marketplace',
        KeyConditionExpression: 'listing = :published',
        ExpressionAttributeValues: { ':published': 'published' },
        ScanIndexForward: false,
      }),

    /**
     * Changes fields of a resource seen at `expected` (version and status), plus a new version snapshot when given.
     * Counters are never written here: calls and installs ADD to them concurrently.
     */
    async update(
      resourceId: string,
      expected: { version: number; status: string },
      change: { set: Partial<ResourceItem>; remove?: Array<keyof ResourceItem>; snapshot?: ResourceVersion },
    ): Promise<void> {
      const { expression, names, values } = updateExpression(change.set, change.remove);
      const update = {
        TableName: resources(),
        Key: { resourceId },
        UpdateExpression: expression,
        ConditionExpression: '#version = :expectedVersion AND #status = :expectedStatus',
        ExpressionAttributeNames: { ...names, '#version': 'version', '#status': 'status' },
        ExpressionAttributeValues: { ...values, ':expectedVersion': expected.version, ':expectedStatus': expected.status },
      };
      const snapshot = change.snapshot;
      if (!snapshot) return void (await db.send(new UpdateCommand(update)));
      await db.send(
        new TransactWriteCommand({
          TransactItems: [{ Update: update }, { Put: { TableName: versions(), Item: snapshot, ConditionExpression: 'attribute_not_exists(resourceId)' } }],
        }),
      );
    },

    /** Refused (condition failure) while any installation is active. */
    async delete(resourceId: string): Promise<void> {
      await db.send(
        new DeleteCommand({
          TableName: resources(),
          Key: { resourceId },
          ConditionExpression: 'attribute_exists(resourceId) AND installCount = :zero',
          ExpressionAttributeValues: { ':zero': 0 },
        }),
      );
      const keys = await queryAll<{ resourceId: string; version: number }>({
        TableName: versions(),
        KeyConditionExpression: 'resourceId = :resourceId',
        ExpressionAttributeValues: { ':resourceId': resourceId },
        ProjectionExpression: 'resourceId, #version',
        ExpressionAttributeNames: { '#version': 'version' },
      });
      for (let start = 0; start < keys.length; start += 25) {
        const RequestItems = { [versions()]: keys.slice(start, start + 25).map((Key) => ({ DeleteRequest: { Key } })) };
        let unprocessed: typeof RequestItems | undefined = RequestItems;
        while (unprocessed && Object.keys(unprocessed).length) {
          const result = await db.send(new BatchWriteCommand({ RequestItems: unprocessed }));
          unprocessed = result.UnprocessedItems as typeof RequestItems | undefined;
        }
      }
    },

    /** A call no installation records (x402 without the owner's installation); a resource deleted meanwhile stays deleted. */
    async countRetiredCall(resourceId: string, call: { success: boolean }): Promise<void> {
      try {
        await db.send(
          new UpdateCommand({
            TableName: resources(),
            Key: { resourceId },
            UpdateExpression: 'ADD retiredCalls :one, retiredFailedCalls :failed',
            ConditionExpression: 'attribute_exists(resourceId)',
            ExpressionAttributeValues: { ':one': 1, ':failed': call.success ? 0 : 1 },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },

    /** Atomic ADD; false when the resource does not exist. */
    async addRevenue(resourceId: string, amountUsd: number): Promise<boolean> {
      try {
        await db.send(
          new UpdateCommand({
            TableName: resources(),
            Key: { resourceId },
            UpdateExpression: 'ADD revenueUsd :amount',
            ConditionExpression: 'attribute_exists(resourceId)',
            ExpressionAttributeValues: { ':amount': amountUsd },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },
  };
}

export type ResourceStore = ReturnType<typeof createResourceStore>;
