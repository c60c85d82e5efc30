import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '#platform/dynamo.js';
import type { RateLimiter } from '#platform/ports.js';

/** Fixed-window counters in DynamoDB: one atomic ADD per hit, shared by every Lambda container. */
export const dynamoRateLimiter: RateLimiter = {
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
