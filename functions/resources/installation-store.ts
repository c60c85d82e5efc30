// DynamoDB access for installations (with their usage counters and recent calls) and pending OAuth2 flows.
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, queryAll, tableName } from '#platform/dynamo.js';
import { afterCall, installationReads } from './installation-reads.js';
import type { InstallationItem, RecentCall } from './records.js';
import { updateExpression } from '#platform/update-expression.js';

export interface OAuthStateItem {
  stateHash: string;
  userId: string;
  resourceId: string;
  installationId: string;
  redirectUri: string;
  codeVerifier: string;
  createdAt: string;
  /** Epoch seconds; DynamoDB's TTL removes the item, and take() refuses it once past. */
  expiresAt: number;
}

/** recentCalls shows this many; the item holds up to `recentCallsSlack` more between trims (it stays under 4 KB, one read unit). */
export const recentCallsKept = 20;
const recentCallsSlack = 10;

export type InstallRefusal = 'already_installed' | 'not_published';

/** Which condition of a cancelled transaction failed, by position. */
const failedAt = (error: unknown): number[] =>
  ((error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).flatMap((reason, index) =>
    reason.Code === 'ConditionalCheckFailed' ? [index] : [],
  );

export function createInstallationStore() {
  const db = dynamo();
  const installations = () => tableName('resourceInstallations');

  /** Drops the oldest `recentCallsSlack` entries; false when a concurrent trim got there first. */
  async function trimRecentCalls(item: InstallationItem): Promise<boolean> {
    try {
      await db.send(
        new UpdateCommand({
          TableName: installations(),
          Key: { userId: item.userId, resourceId: item.resourceId },
          UpdateExpression: `REMOVE ${Array.from({ length: recentCallsSlack }, (_, index) => `recentCalls[${index}]`).join(', ')}`,
          ConditionExpression: 'installationId = :installationId AND size(recentCalls) >= :full',
          ExpressionAttributeValues: { ':installationId': item.installationId, ':full': recentCallsKept + recentCallsSlack },
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  return {
    /** Installation and the resource's installCount in one transaction; refused if installed already or not published. */
    async install(item: InstallationItem): Promise<InstallRefusal | undefined> {
      installationReads.forget(item.userId, item.resourceId);
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              { Put: { TableName: installations(), Item: item, ConditionExpression: 'attribute_not_exists(userId)' } },
              {
                Update: {
                  TableName: tableName('resources'),
                  Key: { resourceId: item.resourceId },
                  UpdateExpression: 'ADD installCount :one',
                  ConditionExpression: '#status = :published',
                  ExpressionAttributeNames: { '#status': 'status' },
                  ExpressionAttributeValues: { ':one': 1, ':published': 'published' },
                },
              },
            ],
          }),
        );
        return undefined;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return failedAt(error).includes(0) ? 'already_installed' : 'not_published';
      }
    },

    /**
     * Removes the installation as it was read (its credentials with it) and folds its counters into the resource's
     * retired ones; false when it is gone or has counted a call since it was read.
     */
    async uninstall(item: InstallationItem): Promise<boolean> {
      installationReads.forget(item.userId, item.resourceId);
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Delete: {
                  TableName: installations(),
                  Key: { userId: item.userId, resourceId: item.resourceId },
                  ConditionExpression: 'installationId = :installationId AND totalCalls = :calls',
                  ExpressionAttributeValues: { ':installationId': item.installationId, ':calls': item.totalCalls },
                },
              },
              {
                Update: {
                  TableName: tableName('resources'),
                  Key: { resourceId: item.resourceId },
                  UpdateExpression: 'ADD installCount :minusOne, retiredCalls :calls, retiredFailedCalls :failed, revenueUsd :charged',
                  ConditionExpression: 'attribute_exists(resourceId)',
                  ExpressionAttributeValues: { ':minusOne': -1, ':calls': item.totalCalls, ':failed': item.failedCalls ?? 0, ':charged': item.totalCost },
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

    /** A consistent read; with `maxAgeMs`, a read of this process at most that old may answer instead (the call path). */
    async get(userId: string, resourceId: string, maxAgeMs = 0): Promise<InstallationItem | undefined> {
      const recalled = maxAgeMs > 0 ? installationReads.recall(userId, resourceId, maxAgeMs) : undefined;
      if (recalled) return recalled;
      const { Item } = await db.send(new GetCommand({ TableName: installations(), Key: { userId, resourceId }, ConsistentRead: true }));
      if (Item) installationReads.remember(Item as InstallationItem);
      else installationReads.forget(userId, resourceId);
      return Item as InstallationItem | undefined;
    },

    async getById(installationId: string): Promise<InstallationItem | undefined> {
      const { Items } = await db.send(
        new QueryCommand({
          TableName: installations(),
          IndexName: 'byInstallationId',
          KeyConditionExpression: 'installationId = :installationId',
          ExpressionAttributeValues: { ':installationId': installationId },
        }),
      );
      return Items?.[0] as InstallationItem | undefined;
    },

    /** Every active installation of a resource, for its creator's metrics. */
    listByResource: (resourceId: string) =>
      queryAll<InstallationItem>({
        TableName: installations(),
        IndexName: 'byResource',
        KeyConditionExpression: 'resourceId = :resourceId',
        ExpressionAttributeValues: { ':resourceId': resourceId },
      }),

    listByUser: (userId: string) =>
      queryAll<InstallationItem>({
        TableName: installations(),
        KeyConditionExpression: 'userId = :userId',
        ExpressionAttributeValues: { ':userId': userId },
        ConsistentRead: true,
      }),

    /** Changes the installation that has this id; false when it was uninstalled meanwhile. */
    async update(
      item: InstallationItem,
      set: Partial<InstallationItem>,
      remove: Array<keyof InstallationItem> = [],
      extraCondition?: { field: keyof InstallationItem; equals: unknown },
    ): Promise<boolean> {
      const { expression, names, values } = updateExpression(set, remove);
      installationReads.forget(item.userId, item.resourceId);
      try {
        await db.send(
          new UpdateCommand({
            TableName: installations(),
            Key: { userId: item.userId, resourceId: item.resourceId },
            UpdateExpression: expression,
            ConditionExpression: `installationId = :installationId${extraCondition ? ' AND #extra = :extra' : ''}`,
            ExpressionAttributeNames: { ...names, ...(extraCondition && { '#extra': extraCondition.field }) },
            ExpressionAttributeValues: { ...values, ':installationId': item.installationId, ...(extraCondition && { ':extra': extraCondition.equals }) },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    /**
     * One write per call: counters, the call appended to recentCalls and today's count. Day keys from earlier days go
     * in the same write; recentCalls is cut back to the newest ones once it has grown by the slack.
     */
    async recordCall(item: InstallationItem, call: RecentCall): Promise<void> {
      const known = installationReads.latest(item);
      const today = call.timestamp.slice(0, 10);
      const staleDays = Object.keys(known.dailyCalls ?? {}).filter((day) => day !== today);
      try {
        await db.send(
          new UpdateCommand({
            TableName: installations(),
            Key: { userId: item.userId, resourceId: item.resourceId },
            UpdateExpression: [
              'ADD totalCalls :one, failedCalls :failed, totalCost :cost',
              'SET lastUsedAt = :now, recentCalls = list_append(if_not_exists(recentCalls, :none), :call), dailyCalls.#today = if_not_exists(dailyCalls.#today, :zero) + :one',
              ...(staleDays.length ? [`REMOVE ${staleDays.map((_, index) => `dailyCalls.#stale${index}`).join(', ')}`] : []),
            ].join(' '),
            ConditionExpression: 'installationId = :installationId',
            ExpressionAttributeNames: { '#today': today, ...Object.fromEntries(staleDays.map((day, index) => [`#stale${index}`, day])) },
            ExpressionAttributeValues: {
              ':one': 1,
              ':zero': 0,
              ':failed': call.success ? 0 : 1,
              ':cost': call.cost,
              ':now': call.timestamp,
              ':none': [],
              ':call': [call],
              ':installationId': item.installationId,
            },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return installationReads.forget(item.userId, item.resourceId);
      }
      const next = afterCall(known, call);
      const full = next.recentCalls.length >= recentCallsKept + recentCallsSlack;
      installationReads.advance(full && (await trimRecentCalls(item)) ? { ...next, recentCalls: next.recentCalls.slice(recentCallsSlack) } : next);
    },

    async putOAuthState(state: OAuthStateItem): Promise<void> {
      await db.send(new PutCommand({ TableName: tableName('resourceOAuthStates'), Item: state, ConditionExpression: 'attribute_not_exists(stateHash)' }));
    },

    /** Single use: the state is deleted as it is read. */
    async takeOAuthState(stateHash: string): Promise<OAuthStateItem | undefined> {
      try {
        const { Attributes } = await db.send(
          new DeleteCommand({
            TableName: tableName('resourceOAuthStates'),
            Key: { stateHash },
            ConditionExpression: 'attribute_exists(stateHash)',
            ReturnValues: 'ALL_OLD',
          }),
        );
        return Attributes as OAuthStateItem | undefined;
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },
  };
}

export type InstallationStore = ReturnType<typeof createInstallationStore>;
