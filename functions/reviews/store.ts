import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, queryAll, tableName } from '#platform/dynamo.js';
import type { Review } from './schemas.js';

export type ReviewRecord = Review & { itemKey: string };

/** A review's move of its item's `ratingSum` and `reviewCount`, written in the review's transaction. */
export type RatingUpdate = NonNullable<NonNullable<TransactWriteCommandInput['TransactItems']>[number]['Update']>;

/** Built by the rated item's own store, which alone names its table: adds one rating while the item exists. */
export function ratingUpdate(table: string, key: Record<string, string>, rating: number): RatingUpdate {
  return {
    TableName: table,
    Key: key,
    UpdateExpression: 'ADD ratingSum :rating, reviewCount :one',
    ConditionExpression: 'attribute_exists(#key)',
    ExpressionAttributeNames: { '#key': Object.keys(key)[0]! },
    ExpressionAttributeValues: { ':rating': rating, ':one': 1 },
  };
}

export function createReviewStore() {
  const db = dynamo();
  return {
    /** The review and the item's aggregates in one transaction; 'duplicate' when the user reviewed it already, 'missing' when the item is gone. */
    async add(review: ReviewRecord, item: RatingUpdate): Promise<'duplicate' | 'missing' | undefined> {
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [{ Put: { TableName: tableName('reviews'), Item: review, ConditionExpression: 'attribute_not_exists(userId)' } }, { Update: item }],
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
