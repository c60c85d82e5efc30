import { GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName, unlessConditionFails } from '#platform/dynamo.js';

/**
 * An OAuth grant, kept in the keys table beside the user's API keys (so the keys list shows it, `kind: "oauth"`). Its
 * `keyHash` is `grant#<grantId>`, never a SHA-256, so no presented key finds it; the hashes of its current tokens are
 * on it, so rotating them or revoking it is one conditional write.
 */
export interface StoredGrant {
  keyHash: string;
  keyId: string;
  userId: string;
  kind: 'oauth';
  /** The client's name as it registered. */
  name: string;
  clientId: string;
  scopes: string[];
  /** The protected resource the tokens are bound to (RFC 8707). */
  resource: string;
  prefix: string;
  createdAt: string;
  /** When the client last obtained tokens (issue or refresh). */
  lastUsedAt: string;
  revokedAt?: string;
  accessHash: string;
  refreshHash: string;
}

/**
 * One access or refresh token of a grant. No `userId`: tokens stay out of the byUser index, so listing keys never reads
 * them; `expiresAt` (epoch seconds) is the table's TTL, so used tokens go by themselves.
 */
export interface StoredToken {
  keyHash: string;
  kind: 'oauth_access' | 'oauth_refresh';
  keyId: string;
  scopes: string[];
  expiresAt: number;
  /** A refresh token's exchange: a second one is a reuse. */
  usedAt?: string;
}

export const grantKey = (grantId: string) => `grant#${grantId}`;

export function createGrantStore() {
  const db = dynamo();
  const table = () => tableName('apiKeys');
  const put = (item: object) => ({ Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(keyHash)' } });
  return {
    async getGrant(grantId: string): Promise<StoredGrant | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { keyHash: grantKey(grantId) }, ConsistentRead: true }));
      return Item as StoredGrant | undefined;
    },

    async getToken(keyHash: string): Promise<StoredToken | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { keyHash }, ConsistentRead: true }));
      return Item?.kind === 'oauth_access' || Item?.kind === 'oauth_refresh' ? (Item as StoredToken) : undefined;
    },

    async createGrant(grant: StoredGrant, access: StoredToken, refresh: StoredToken): Promise<void> {
      await db.send(new TransactWriteCommand({ TransactItems: [put(grant), put(access), put(refresh)] }));
    },

    /** Marks `used` spent and moves the grant to the new tokens, only if `used` is still its current, unspent refresh token. */
    async rotate(grant: StoredGrant, used: StoredToken, access: StoredToken, refresh: StoredToken, now: string): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Update: {
                TableName: table(),
                Key: { keyHash: used.keyHash },
                UpdateExpression: 'SET usedAt = :now',
                ConditionExpression: 'attribute_exists(keyHash) AND attribute_not_exists(usedAt)',
                ExpressionAttributeValues: { ':now': now },
              },
            },
            {
              Update: {
                TableName: table(),
                Key: { keyHash: grant.keyHash },
                UpdateExpression: 'SET accessHash = :access, refreshHash = :refresh, lastUsedAt = :now',
                ConditionExpression: 'refreshHash = :used AND attribute_not_exists(revokedAt)',
                ExpressionAttributeValues: { ':access': access.keyHash, ':refresh': refresh.keyHash, ':now': now, ':used': used.keyHash },
              },
            },
            put(access),
            put(refresh),
          ],
        }),
      );
    },

    /** Revokes the grant unless it already is; false when it was. */
    async revokeGrant(grantId: string, revokedAt: string): Promise<boolean> {
      const done = await unlessConditionFails(
        db.send(
          new UpdateCommand({
            TableName: table(),
            Key: { keyHash: grantKey(grantId) },
            UpdateExpression: 'SET revokedAt = :revokedAt',
            ConditionExpression: 'attribute_exists(keyHash) AND attribute_not_exists(revokedAt)',
            ExpressionAttributeValues: { ':revokedAt': revokedAt },
          }),
        ),
      );
      return done !== undefined;
    },
  };
}

export type GrantStore = ReturnType<typeof createGrantStore>;
