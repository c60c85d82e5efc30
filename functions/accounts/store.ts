import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, queryAll, tableName } from '#platform/dynamo.js';
import type { User } from './schemas.js';

export interface StoredKey {
  keyHash: string;
  keyId: string;
  userId: string;
  name: string;
  scopes: string[];
  prefix: string;
  createdAt: string;
  revokedAt?: string;
  /** Absent on API keys; `oauth` on an OAuth grant (grant-store.ts), whose fields follow. */
  kind?: string;
  clientId?: string;
  lastUsedAt?: string;
  accessHash?: string;
  spendLimitUsd?: number;
  approvalAboveUsd?: number;
}

const usernameClaim = (username: string) => username.toLowerCase();

export function createAccountStore() {
  const db = dynamo();
  return {
    /** User, username claim and first key in one transaction; fails if the username is taken. */
    async createUser(user: User, key: StoredKey): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName('users'), Item: user, ConditionExpression: 'attribute_not_exists(userId)' } },
            {
              Put: {
                TableName: tableName('usernames'),
                Item: { username: usernameClaim(user.username), userId: user.userId },
                ConditionExpression: 'attribute_not_exists(username)',
              },
            },
            { Put: { TableName: tableName('apiKeys'), Item: key, ConditionExpression: 'attribute_not_exists(keyHash)' } },
          ],
        }),
      );
    },

    async getUser(userId: string): Promise<User | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName('users'), Key: { userId } }));
      return Item as User | undefined;
    },

    /** Moves the username claim in the same transaction when the username changes. */
    async updateUser(current: User, next: User): Promise<void> {
      const renamed = usernameClaim(current.username) !== usernameClaim(next.username);
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Put: {
                TableName: tableName('users'),
                Item: next,
                ConditionExpression: 'updatedAt = :seen',
                ExpressionAttributeValues: { ':seen': current.updatedAt },
              },
            },
            ...(renamed
              ? [
                  {
                    Put: {
                      TableName: tableName('usernames'),
                      Item: { username: usernameClaim(next.username), userId: next.userId },
                      ConditionExpression: 'attribute_not_exists(username)',
                    },
                  },
                  {
                    Delete: {
                      TableName: tableName('usernames'),
                      Key: { username: usernameClaim(current.username) },
                      ConditionExpression: 'userId = :me',
                      ExpressionAttributeValues: { ':me': current.userId },
                    },
                  },
                ]
              : []),
          ],
        }),
      );
    },

    async userIdOfUsername(username: string): Promise<string | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName('usernames'), Key: { username: usernameClaim(username) } }));
      return Item?.userId as string | undefined;
    },

    async isUsernameTaken(username: string): Promise<boolean> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName('usernames'), Key: { username: usernameClaim(username) } }));
      return Boolean(Item);
    },

    async putKey(key: StoredKey): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: tableName('apiKeys'), Item: key, ConditionExpression: 'attribute_not_exists(keyHash)' } }],
        }),
      );
    },

    async getKeyByHash(keyHash: string): Promise<StoredKey | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName('apiKeys'), Key: { keyHash }, ConsistentRead: true }));
      return Item as StoredKey | undefined;
    },

    /** Every key of a user, newest first (users hold few keys). */
    listKeys(userId: string): Promise<StoredKey[]> {
      return queryAll<StoredKey>({
        TableName: tableName('apiKeys'),
        IndexName: 'byUser',
        KeyConditionExpression: 'userId = :userId',
        ExpressionAttributeValues: { ':userId': userId },
        ScanIndexForward: false,
      });
    },

    /** Sets (a number) or removes (null) a key's budget fields; the key must exist and not be revoked. */
    async updateBudget(keyHash: string, budget: { spendLimitUsd?: number | null; approvalAboveUsd?: number | null }): Promise<void> {
      const given = Object.entries(budget).filter(([, value]) => value !== undefined);
      const set = given.filter(([, value]) => value !== null);
      const removed = given.filter(([, value]) => value === null);
      await db.send(
        new UpdateCommand({
          TableName: tableName('apiKeys'),
          Key: { keyHash },
          UpdateExpression: [
            set.length && `SET ${set.map(([name]) => `#${name} = :${name}`).join(', ')}`,
            removed.length && `REMOVE ${removed.map(([name]) => `#${name}`).join(', ')}`,
          ]
            .filter(Boolean)
            .join(' '),
          ConditionExpression: 'attribute_exists(keyHash) AND attribute_not_exists(revokedAt)',
          ExpressionAttributeNames: Object.fromEntries(given.map(([name]) => [`#${name}`, name])),
          ...(set.length && { ExpressionAttributeValues: Object.fromEntries(set.map(([name, value]) => [`:${name}`, value])) }),
        }),
      );
    },

    async revokeKey(keyHash: string, revokedAt: string): Promise<void> {
      await db.send(
        new UpdateCommand({
          TableName: tableName('apiKeys'),
          Key: { keyHash },
          UpdateExpression: 'SET revokedAt = :revokedAt',
          ConditionExpression: 'attribute_exists(keyHash) AND attribute_not_exists(revokedAt)',
          ExpressionAttributeValues: { ':revokedAt': revokedAt },
        }),
      );
    },
  };
}

export type AccountStore = ReturnType<typeof createAccountStore>;
