// DynamoDB access for scripts, their versions and installations.
import { DeleteCommand, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, queryAll, tableName } from '#platform/dynamo.js';
import { updateExpression } from '#platform/update-expression.js';
import { ratingUpdate } from '#functions/reviews/api.js';
import type { Artifact, Installation, Script, ScriptVersion } from './model.js';

/** The UpdateCommand fields of `patch`: a field set to undefined is removed. */
function updateOf(patch: Record<string, unknown>) {
  const { expression, names, values } = updateExpression(patch, [], { removeUndefined: true });
  return { UpdateExpression: expression, ExpressionAttributeNames: names, ExpressionAttributeValues: values };
}

export function createScriptStore() {
  const db = dynamo();
  const scripts = () => tableName('scripts');
  const versions = () => tableName('scriptVersions');
  const installations = () => tableName('scriptInstallations');

  return {
    ratingUpdate: (scriptId: string, rating: number) => ratingUpdate(scripts(), { scriptId }, rating),

    /** The script, its first version and the owner's installation, all or nothing. */
    async create(script: Script, version: ScriptVersion, installation: Installation): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: scripts(), Item: script, ConditionExpression: 'attribute_not_exists(scriptId)' } },
            { Put: { TableName: versions(), Item: version, ConditionExpression: 'attribute_not_exists(scriptId)' } },
            { Put: { TableName: installations(), Item: installation, ConditionExpression: 'attribute_not_exists(userId)' } },
          ],
        }),
      );
    },

    async get(scriptId: string): Promise<Script | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: scripts(), Key: { scriptId }, ConsistentRead: true }));
      return Item as Script | undefined;
    },

    /**
     * Applies `patch` if the script still carries the `expect`ed values (optimistic concurrency: a lost race is a
     * ConditionalCheckFailed, which callers turn into CONFLICT). Counters move with ADD elsewhere and are not checked.
     */
    async update(scriptId: string, patch: Partial<Script>, expect: Partial<Script>): Promise<void> {
      const update = updateOf(patch);
      const conditions = Object.keys(expect).map((key) => `#expect_${key} = :expect_${key}`);
      await db.send(
        new UpdateCommand({
          TableName: scripts(),
          Key: { scriptId },
          ...update,
          ConditionExpression: ['attribute_exists(scriptId)', ...conditions].join(' AND '),
          ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...Object.fromEntries(Object.keys(expect).map((key) => [`#expect_${key}`, key])) },
          ExpressionAttributeValues: {
            ...update.ExpressionAttributeValues,
            ...Object.fromEntries(Object.entries(expect).map(([key, value]) => [`:expect_${key}`, value])),
          },
        }),
      );
    },

    listByOwner: (ownerId: string) =>
      queryAll<Script>({
        TableName: scripts(),
        IndexName: 'byOwner',
        KeyConditionExpression: 'ownerId = :ownerId',
        ExpressionAttributeValues: { ':ownerId': ownerId },
        ScanIndexForward: false,
      }),

    listListed: () =>
      queryAll<Script>({
        TableName: scripts(),
        IndexName: 'byListing',
        KeyConditionExpression: 'listed = :public',
        ExpressionAttributeValues: { ':public': 'public' },
      }),

    /** The next version, moving the script's latest pointers only if nobody added one meanwhile. */
    async addVersion(script: Script, version: ScriptVersion): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: versions(), Item: version, ConditionExpression: 'attribute_not_exists(scriptId)' } },
            {
              Update: {
                TableName: scripts(),
                Key: { scriptId: script.scriptId },
                UpdateExpression: 'SET latestVersion = :version, latestSemver = :semver, updatedAt = :now',
                ConditionExpression: 'latestVersion = :previous',
                ExpressionAttributeValues: {
                  ':version': version.version,
                  ':semver': version.semver,
                  ':now': version.createdAt,
                  ':previous': script.latestVersion,
                },
              },
            },
          ],
        }),
      );
    },

    async getVersion(scriptId: string, version: number): Promise<ScriptVersion | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: versions(), Key: { scriptId, version } }));
      return Item as ScriptVersion | undefined;
    },

    listVersions: (scriptId: string) =>
      queryAll<ScriptVersion>({ TableName: versions(), KeyConditionExpression: 'scriptId = :scriptId', ExpressionAttributeValues: { ':scriptId': scriptId } }),

    async setArtifact(scriptId: string, version: number, artifact: Artifact, deployedAt?: string): Promise<void> {
      await db.send(new UpdateCommand({ TableName: versions(), Key: { scriptId, version }, ...updateOf({ artifact, ...(deployedAt && { deployedAt }) }) }));
    },

    async getInstallation(scriptId: string, userId: string): Promise<Installation | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: installations(), Key: { scriptId, userId } }));
      return Item as Installation | undefined;
    },

    /** Every script the user installed, their own included (the owner gets an installation at creation). */
    listUserInstallations: (userId: string) =>
      queryAll<Installation>({
        TableName: installations(),
        IndexName: 'byUser',
        KeyConditionExpression: 'userId = :userId',
        ExpressionAttributeValues: { ':userId': userId },
      }),

    listInstallations: (scriptId: string) =>
      queryAll<Installation>({
        TableName: installations(),
        KeyConditionExpression: 'scriptId = :scriptId',
        ExpressionAttributeValues: { ':scriptId': scriptId },
      }),

    /** The installation and the script's installCount together; fails if the user has one already. */
    async install(installation: Installation, countsForMarketplace: boolean): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: installations(), Item: installation, ConditionExpression: 'attribute_not_exists(userId)' } },
            {
              Update: {
                TableName: scripts(),
                Key: { scriptId: installation.scriptId },
                UpdateExpression: 'ADD installCount :delta',
                ConditionExpression: 'attribute_exists(scriptId)',
                ExpressionAttributeValues: { ':delta': countsForMarketplace ? 1 : 0 },
              },
            },
          ],
        }),
      );
    },

    async uninstall(installation: Installation, countsForMarketplace: boolean): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: installations(),
                Key: { scriptId: installation.scriptId, userId: installation.userId },
                ConditionExpression: 'attribute_exists(userId)',
              },
            },
            {
              Update: {
                TableName: scripts(),
                Key: { scriptId: installation.scriptId },
                UpdateExpression: 'ADD installCount :delta',
                ExpressionAttributeValues: { ':delta': countsForMarketplace ? -1 : 0 },
              },
            },
          ],
        }),
      );
    },

    /** Removes the script, its versions and the given installations; execution records expire by TTL. */
    async remove(scriptId: string, versionNumbers: number[], installationUsers: string[]): Promise<void> {
      for (const userId of installationUsers) await db.send(new DeleteCommand({ TableName: installations(), Key: { scriptId, userId } }));
      for (const version of versionNumbers) await db.send(new DeleteCommand({ TableName: versions(), Key: { scriptId, version } }));
      await db.send(new DeleteCommand({ TableName: scripts(), Key: { scriptId } }));
    },
  };
}

export type ScriptStore = ReturnType<typeof createScriptStore>;
