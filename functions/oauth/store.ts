import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName, unlessConditionFails } from '#platform/dynamo.js';
import type { StoredAuthorization, StoredClient } from './schemas.js';

export function createOAuthStore() {
  const db = dynamo();
  const get = async <T>(table: 'oauthClients' | 'oauthAuthorizations', key: Record<string, string>) =>
    (await db.send(new GetCommand({ TableName: tableName(table), Key: key, ConsistentRead: true }))).Item as T | undefined;
  /** A conditional update; false when its condition did not hold. */
  const update = async (key: string, set: Record<string, unknown>, condition: string, values: Record<string, unknown>) => {
    const names = Object.keys(set);
    const done = await unlessConditionFails(
      db.send(
        new UpdateCommand({
          TableName: tableName('oauthAuthorizations'),
          Key: { authorizationId: key },
          UpdateExpression: `SET ${names.map((name) => `#${name} = :${name}`).join(', ')}`,
          ConditionExpression: condition,
          ExpressionAttributeNames: Object.fromEntries(names.map((name) => [`#${name}`, name])),
          ExpressionAttributeValues: { ...Object.fromEntries(names.map((name) => [`:${name}`, set[name]])), ...values },
        }),
      ),
    );
    return done !== undefined;
  };
  return {
    async putClient(client: StoredClient): Promise<void> {
      await db.send(new PutCommand({ TableName: tableName('oauthClients'), Item: client, ConditionExpression: 'attribute_not_exists(clientId)' }));
    },

    getClient: (clientId: string) => get<StoredClient>('oauthClients', { clientId }),

    /** A client that obtained a grant stays registered. */
    async keepClient(clientId: string): Promise<void> {
      await db.send(new UpdateCommand({ TableName: tableName('oauthClients'), Key: { clientId }, UpdateExpression: 'REMOVE expiresAt' }));
    },

    async putAuthorization(authorization: StoredAuthorization): Promise<void> {
      await db.send(
        new PutCommand({ TableName: tableName('oauthAuthorizations'), Item: authorization, ConditionExpression: 'attribute_not_exists(authorizationId)' }),
      );
    },

    getAuthorization: (authorizationId: string) => get<StoredAuthorization>('oauthAuthorizations', { authorizationId }),

    /** Records the user's decision on a request still pending; false when someone decided first. */
    decide: (authorizationId: string, decision: Partial<StoredAuthorization>) =>
      update(authorizationId, decision, '#status = :pending', { ':pending': 'pending' }),

    /** Spends the code once: false when it was already exchanged (or never approved). */
    claimCode: (authorizationId: string, codeHash: string) =>
      update(authorizationId, { status: 'exchanged' }, '#status = :approved AND codeHash = :codeHash', { ':approved': 'approved', ':codeHash': codeHash }),

    recordGrant: (authorizationId: string, grantId: string) => update(authorizationId, { grantId }, 'attribute_exists(authorizationId)', {}),
  };
}

export type OAuthStore = ReturnType<typeof createOAuthStore>;
