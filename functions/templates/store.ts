// DynamoDB access for templates, their versions, builds, installations and subdomains.
import { DeleteCommand, GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isConditionFailure, queryAll } from '#platform/dynamo.js';
import { updateExpression } from '#platform/update-expression.js';
import { ratingUpdate } from '#functions/reviews/api.js';
import type { TableName } from '#platform/table-definition.js';
import type { BuildRecord, TemplateInstallation, TemplateItem, TemplateVersion } from './model.js';

export interface TemplateStoreDeps {
  db: DynamoDBDocumentClient;
  tableName: (name: TableName) => string;
}

export function createTemplateStore({ db, tableName }: TemplateStoreDeps) {
  const t = {
    templates: () => tableName('templates'),
    versions: () => tableName('templateVersions'),
    builds: () => tableName('templateBuilds'),
    installations: () => tableName('templateInstallations'),
    sites: () => tableName('templateSites'),
  };
  const get = async <T>(table: string, key: Record<string, string>) =>
    (await db.send(new GetCommand({ TableName: table, Key: key, ConsistentRead: true }))).Item as T | undefined;

  function update(
    table: string,
    key: Record<string, string>,
    set: Record<string, unknown>,
    remove: string[] = [],
    condition?: { expression: string; values: Record<string, unknown> },
  ) {
    const { expression, names, values } = updateExpression(set, remove);
    const keyName = Object.keys(key)[0]!;
    return new UpdateCommand({
      TableName: table,
      Key: key,
      UpdateExpression: expression,
      ConditionExpression: [`attribute_exists(#key)`, condition?.expression].filter(Boolean).join(' AND '),
      ExpressionAttributeNames: { ...names, '#key': keyName },
      // DynamoDB refuses an empty map: a REMOVE-only update without a condition has no values.
      ...((values || condition) && { ExpressionAttributeValues: { ...values, ...condition?.values } }),
      ReturnValues: 'ALL_NEW',
    });
  }

  return {
    ratingUpdate: (templateId: string, rating: number) => ratingUpdate(t.templates(), { templateId }, rating),

    /** The template, its first version and its preview subdomain together; false when the subdomain is taken. */
    async create(item: TemplateItem, version: TemplateVersion): Promise<boolean> {
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: t.sites(),
                  Item: { subdomain: item.previewSubdomain, templateId: item.templateId, installationId: null, createdAt: item.createdAt },
                  ConditionExpression: 'attribute_not_exists(subdomain)',
                },
              },
              { Put: { TableName: t.templates(), Item: item, ConditionExpression: 'attribute_not_exists(templateId)' } },
              { Put: { TableName: t.versions(), Item: version } },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    get: (templateId: string) => get<TemplateItem>(t.templates(), { templateId }),

    /** Changes fields; with `expectStatus`, only while the template is in that state (undefined when it is not). */
    async update(
      templateId: string,
      set: Partial<TemplateItem>,
      remove: Array<keyof TemplateItem> = [],
      expectStatus?: TemplateItem['status'],
    ): Promise<TemplateItem | undefined> {
      try {
        const condition = expectStatus && { expression: '#status = :expectStatus', values: { ':expectStatus': expectStatus } };
        const command = update(t.templates(), { templateId }, set, remove as string[], condition);
        if (condition) command.input.ExpressionAttributeNames!['#status'] = 'status';
        return (await db.send(command)).Attributes as TemplateItem;
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },

    async remove(template: TemplateItem, versions: TemplateVersion[]): Promise<void> {
      await db.send(new DeleteCommand({ TableName: t.templates(), Key: { templateId: template.templateId } }));
      for (const version of versions)
        await db.send(new DeleteCommand({ TableName: t.versions(), Key: { templateId: template.templateId, version: version.version } }));
      await db.send(new DeleteCommand({ TableName: t.sites(), Key: { subdomain: template.previewSubdomain } }));
    },

    listByOwner: (ownerId: string) =>
      queryAll<TemplateItem>({
        TableName: t.templates(),
        IndexName: 'byOwner',
        KeyConditionExpression: 'ownerId = :ownerId',
        ExpressionAttributeValues: { ':ownerId': ownerId },
        ScanIndexForward: false,
      }),

    listPublished: () =>
      queryAll<TemplateItem>({
        TableName: t.templates(),
        IndexName: 'templateMarketplace',
        KeyConditionExpression: 'listing = :published',
        ExpressionAttributeValues: { ':published': 'published' },
        ScanIndexForward: false,
      }),

    /** False when the version exists already. */
    async addVersion(version: TemplateVersion, templateSet: Partial<TemplateItem>): Promise<boolean> {
      try {
        const templateUpdate = update(t.templates(), { templateId: version.templateId }, templateSet).input;
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: t.versions(), Item: version, ConditionExpression: 'attribute_not_exists(version)' } },
              { Update: { ...templateUpdate, ReturnValues: undefined } as never },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    getVersion: (templateId: string, version: string) => get<TemplateVersion>(t.versions(), { templateId, version }),

    listVersions: (templateId: string) =>
      queryAll<TemplateVersion>({
        TableName: t.versions(),
        KeyConditionExpression: 'templateId = :templateId',
        ExpressionAttributeValues: { ':templateId': templateId },
      }),

    putBuild: async (build: BuildRecord) => void (await db.send(new PutCommand({ TableName: t.builds(), Item: build }))),

    getBuild: (buildId: string) => get<BuildRecord>(t.builds(), { buildId }),

    /** The runner's id (CodeBuild's build id, which names its log stream). */
    setRunId: async (buildId: string, runId: string) => void (await db.send(update(t.builds(), { buildId }, { runId }))),

    /**
     * Ends a build once, together with what it moves on (its template or installation), so a reader never sees a
     * finished build whose template does not show it yet. Undefined when it had ended already (a repeated delivery).
     */
    async finishBuild(
      running: BuildRecord,
      set: Partial<BuildRecord>,
      movesOn: Partial<TemplateItem> | Partial<TemplateInstallation>,
    ): Promise<BuildRecord | undefined> {
      const build = update(t.builds(), { buildId: running.buildId }, set, [], {
        expression: '#buildStatus = :building',
        values: { ':building': 'building' },
      }).input;
      build.ExpressionAttributeNames!['#buildStatus'] = 'status';
      const owner = running.installationId
        ? update(t.installations(), { installationId: running.installationId }, movesOn).input
        : update(t.templates(), { templateId: running.templateId }, movesOn).input;
      // A cancelled transaction is a build that ended already, a template or installation deleted meanwhile, or a
      // conflicting write: read back which, and end the build alone when what it would move on is gone.
      for (let attempt = 0; ; attempt++) {
        try {
          const items = (await get<unknown>(owner.TableName!, owner.Key as Record<string, string>)) ? [build, owner] : [build];
          await db.send(new TransactWriteCommand({ TransactItems: items.map((item) => ({ Update: { ...item, ReturnValues: undefined } as never })) }));
          return { ...running, ...set };
        } catch (error) {
          if (!isConditionFailure(error) || attempt === 2) throw error;
          if ((await get<BuildRecord>(t.builds(), { buildId: running.buildId }))?.status !== 'building') return undefined;
        }
      }
    },

    /** The installation, its subdomain and the template's installCount together; false when the subdomain is taken. */
    async install(installation: TemplateInstallation): Promise<boolean> {
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: t.sites(),
                  Item: {
                    subdomain: installation.subdomain,
                    templateId: installation.templateId,
                    installationId: installation.installationId,
                    createdAt: installation.installedAt,
                  },
                  ConditionExpression: 'attribute_not_exists(subdomain)',
                },
              },
              { Put: { TableName: t.installations(), Item: installation, ConditionExpression: 'attribute_not_exists(installationId)' } },
              {
                Update: {
                  TableName: t.templates(),
                  Key: { templateId: installation.templateId },
                  UpdateExpression: 'ADD installCount :one',
                  ConditionExpression: 'attribute_exists(templateId)',
                  ExpressionAttributeValues: { ':one': 1 },
                },
              },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    getInstallation: (installationId: string) => get<TemplateInstallation>(t.installations(), { installationId }),

    async updateInstallation(installationId: string, set: Partial<TemplateInstallation>): Promise<TemplateInstallation | undefined> {
      try {
        return (await db.send(update(t.installations(), { installationId }, set))).Attributes as TemplateInstallation;
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },

    async uninstall(installation: TemplateInstallation): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            {
              Delete: {
                TableName: t.installations(),
                Key: { installationId: installation.installationId },
                ConditionExpression: 'attribute_exists(installationId)',
              },
            },
            { Delete: { TableName: t.sites(), Key: { subdomain: installation.subdomain } } },
            {
              Update: {
                TableName: t.templates(),
                Key: { templateId: installation.templateId },
                UpdateExpression: 'ADD installCount :minus',
                ExpressionAttributeValues: { ':minus': -1 },
              },
            },
          ],
        }),
      );
    },

    listInstallationsByUser: (userId: string) =>
      queryAll<TemplateInstallation>({
        TableName: t.installations(),
        IndexName: 'byUser',
        KeyConditionExpression: 'userId = :userId',
        ExpressionAttributeValues: { ':userId': userId },
        ScanIndexForward: false,
      }),

    listInstallationsByTemplate: (templateId: string) =>
      queryAll<TemplateInstallation>({
        TableName: t.installations(),
        IndexName: 'byTemplate',
        KeyConditionExpression: 'templateId = :templateId',
        ExpressionAttributeValues: { ':templateId': templateId },
      }),
  };
}

export type TemplateStore = ReturnType<typeof createTemplateStore>;
