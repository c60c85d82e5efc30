// A per-user change stamp over what an agent's tool catalog is built from (installed resources, runnable scripts,
// flows): every change of those bumps its owner's stamp, so a catalog cached by any instance learns with one read
// whether it still holds, instead of rebuilding it per request or guessing with a TTL.
import { BatchGetCommand, type BatchGetCommandOutput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './dynamo.js';

export interface CatalogStamps {
  /** Records that something in `userId`'s catalog changed. */
  changed(userId: string): Promise<void>;
  /** Each user's current stamp; 0 for a user whose catalog never changed. */
  read(userIds: string[]): Promise<Map<string, number>>;
}

/** BatchGetItem's limit. */
const keysPerRead = 100;

export const dynamoCatalogStamps: CatalogStamps = {
  async changed(userId) {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName('catalogStamps'),
        Key: { userId },
        UpdateExpression: 'ADD stamp :one',
        ExpressionAttributeValues: { ':one': 1 },
      }),
    );
  },

  async read(userIds) {
    const stamps = new Map(userIds.map((userId) => [userId, 0]));
    const table = tableName('catalogStamps');
    for (let start = 0; start < userIds.length; start += keysPerRead) {
      let keys: Record<string, unknown>[] | undefined = userIds.slice(start, start + keysPerRead).map((userId) => ({ userId }));
      while (keys?.length) {
        const page: BatchGetCommandOutput = await dynamo().send(
          new BatchGetCommand({ RequestItems: { [table]: { Keys: keys, ProjectionExpression: 'userId, stamp' } } }),
        );
        for (const item of page.Responses?.[table] ?? []) stamps.set(item.userId as string, item.stamp as number);
        keys = page.UnprocessedKeys?.[table]?.Keys;
      }
    }
    return stamps;
  },
};
