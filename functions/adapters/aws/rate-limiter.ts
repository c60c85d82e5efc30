import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#platform/dynamo.js';
import type { RateLimiter } from '#platform/ports.js';

const isConditionFailure = (error: unknown) => (error as { name?: string }).name === 'ConditionalCheckFailedException';

/**
 * Fixed-window counters in DynamoDB: one atomic ADD per hit, shared by every Lambda container. A bucket's holds are
 * `limit` slot items, each taken by a conditional put when free or lapsed (a container stopped mid-hold frees its slot
 * at `heldUntil`, not at TTL's deletion, which may lag by days): at most `limit` writes per take, one delete per release.
 */
export const dynamoRateLimiter: RateLimiter = {
  async hold(bucket, limit, holdMs) {
    const now = Date.now();
    for (let slot = 0; slot < limit; slot++) {
      const key = { bucket: `${bucket}#hold#${slot}` };
      const heldUntil = now + holdMs;
      try {
        await dynamo().send(
          new PutCommand({
            TableName: tableName('rateLimits'),
            Item: { ...key, heldUntil, expiresAt: Math.ceil(heldUntil / 1000) + 60 },
            ConditionExpression: 'attribute_not_exists(#bucket) OR heldUntil < :now',
            ExpressionAttributeNames: { '#bucket': 'bucket' },
            ExpressionAttributeValues: { ':now': now },
          }),
        );
      } catch (error) {
        if (isConditionFailure(error)) continue;
        throw error;
      }
      return {
        release: async () =>
          void (await dynamo()
            .send(
              new DeleteCommand({
                TableName: tableName('rateLimits'),
                Key: key,
                ConditionExpression: 'heldUntil = :heldUntil',
                ExpressionAttributeValues: { ':heldUntil': heldUntil },
              }),
            )
            .catch((error: unknown) => {
              if (!isConditionFailure(error)) throw error;
            })),
      };
    }
    return undefined;
  },

  async hit(bucket, limit, windowSeconds, now = Date.now()) {
    const windowStart = Math.floor(now / 1000 / windowSeconds) * windowSeconds;
    const resetAt = windowStart + windowSeconds;
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName('rateLimits'),
        Key: { bucket: `${bucket}#${windowStart}` },
        UpdateExpression: 'ADD hits :one SET expiresAt = :expiresAt',
        ExpressionAttributeValues: { ':one': 1, ':expiresAt': resetAt + 60 },
        ReturnValues: 'UPDATED_NEW',
      }),
    );
    const hits = Number(Attributes?.hits ?? 1);
    return { allowed: hits <= limit, limit, remaining: Math.max(0, limit - hits), resetAt };
  },
};
