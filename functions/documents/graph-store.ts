// DynamoDB access for graphs: group graphs, their members, and the content version of every graph.
import { GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, queryAll, tableName } from '#platform/dynamo.js';
import { batchGet } from './batch.js';
import type { Role } from './schemas.js';

export interface StoredGroup {
  graphId: string;
  graphName: string;
  ownerId: string;
  createdAt: number;
}

export interface StoredMember {
  graphId: string;
  userId: string;
  role: Role;
  addedAt: number;
}

/** What a write adds to (or, negative, takes from) a graph's contents: chunks, and their distinct terms summed. */
export interface GraphChange {
  chunks: number;
  terms: number;
}

/** A graph's content version and size; sizes count from when graphs began keeping them. */
export interface GraphState {
  version: number;
  chunkCount: number;
  /** Distinct terms per chunk, summed over the graph's chunks: BM25's average chunk length is termCount / chunkCount. */
  termCount: number;
}

/**
 * The transaction item that moves a graph's content version on, so warm search indexes reload it, and keeps its size,
 * which decides where its search runs (search.ts).
 */
export const bumpVersion = (graphId: string, change: GraphChange = { chunks: 0, terms: 0 }) => ({
  Update: {
    TableName: tableName('graphs'),
    Key: { graphId },
    UpdateExpression: 'ADD version :one, chunkCount :chunks, termCount :terms',
    ExpressionAttributeValues: { ':one': 1, ':chunks': change.chunks, ':terms': change.terms },
  },
});

export function createGraphStore() {
  const db = dynamo();
  return {
    /** The group and its owner's membership, in one transaction. */
    async createGroup(group: StoredGroup): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName('graphs'), Item: { ...group, version: 0 }, ConditionExpression: 'attribute_not_exists(graphId)' } },
            { Put: { TableName: tableName('graphMembers'), Item: { graphId: group.graphId, userId: group.ownerId, role: 'owner', addedAt: group.createdAt } } },
          ],
        }),
      );
    },

    async getGroup(graphId: string): Promise<StoredGroup | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName('graphs'), Key: { graphId } }));
      return Item?.ownerId ? (Item as StoredGroup) : undefined;
    },

    async getGroups(graphIds: string[]): Promise<StoredGroup[]> {
      return batchGet<StoredGroup>(
        tableName('graphs'),
        graphIds.map((graphId) => ({ graphId })),
      );
    },

    /** Zeros for a graph that never changed. Read strongly: a search must see the write it follows. */
    async state(graphId: string): Promise<GraphState> {
      const { Item } = await db.send(
        new GetCommand({ TableName: tableName('graphs'), Key: { graphId }, ConsistentRead: true, ProjectionExpression: 'version, chunkCount, termCount' }),
      );
      return { version: Number(Item?.version ?? 0), chunkCount: Number(Item?.chunkCount ?? 0), termCount: Number(Item?.termCount ?? 0) };
    },

    async getMember(graphId: string, userId: string): Promise<StoredMember | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName('graphMembers'), Key: { graphId, userId }, ConsistentRead: true }));
      return Item as StoredMember | undefined;
    },

    listMembers: (graphId: string) =>
      queryAll<StoredMember>({
        TableName: tableName('graphMembers'),
        KeyConditionExpression: 'graphId = :graphId',
        ExpressionAttributeValues: { ':graphId': graphId },
        ConsistentRead: true,
      }),

    groupsOf: (userId: string) =>
      queryAll<StoredMember>({
        TableName: tableName('graphMembers'),
        IndexName: 'byUser',
        KeyConditionExpression: 'userId = :userId',
        ExpressionAttributeValues: { ':userId': userId },
      }),

    /** Fails the condition when the user is a member already. */
    async addMember(member: StoredMember): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [{ Put: { TableName: tableName('graphMembers'), Item: member, ConditionExpression: 'attribute_not_exists(userId)' } }],
        }),
      );
    },

    async removeMember(graphId: string, userId: string): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [{ Delete: { TableName: tableName('graphMembers'), Key: { graphId, userId }, ConditionExpression: 'attribute_exists(userId)' } }],
        }),
      );
    },
  };
}

export type GraphStore = ReturnType<typeof createGraphStore>;
