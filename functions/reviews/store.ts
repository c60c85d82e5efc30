import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, queryAll, tableName } from '#platform/dynamo.js';
import type { TableName } from '../tables.js';
import type { Review } from './schemas.js';

export type ReviewRecord = Review & { itemKey: string };

/** The item whose `ratingSum` and `reviewCount` a review moves: its table and key. */
export interface RatedItem {
  table: TableName;
  key: Record<string, string>;
}

export function createReviewStore() {
  const db = dynamo();
  return {
    /** The review and the item's aggregates in one transaction; 'duplicate' when the user reviewed it already, 'missing' when the item is gone. */
    async add(review: ReviewRecord, item: RatedItem): Promise<'duplicate' | 'missing' | undefined> {
      const [keyField] = Object.keys(item.key);
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: tableName('reviews'), Item: review, ConditionExpression: 'attribute_not_exists(userId)' } },
              {
                Update: {
                  TableName: tableName(item.table),
                  Key: item.key,
                  UpdateExpression: 'ADD ratingSum :rating, reviewCount :one',
                  ConditionExpression: 'attribute_exists(#key)',
                  ExpressionAttributeNames: { '#key': keyField! },
                  ExpressionAttributeValues: { ':rating': review.rating, ':one': 1 },
                },
              },
            ],
          }),
        );
        return undefined;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const reasons = (error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? [];
        return reasons[0]?.Code === 'ConditionalCheckFailed' ? 'duplicate' : 'missing';
      }
    },

    list: (itemKey: string) =>
      queryAll<ReviewRecord>({
        TableName: tableName('reviews'),
        KeyConditionExpression: 'itemKey = :itemKey',
        ExpressionAttributeValues: { ':itemKey': itemKey },
      }),
  };
}

export type ReviewStore = ReturnType<typeof createReviewStore>;
