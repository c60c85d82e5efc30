// Agent budgets in DynamoDB: a key's spend per UTC day as one counter moved by conditional ADDs (the limit holds
// whatever calls race), and the paid calls waiting for an approval, each used once.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, tableName } from '#platform/dynamo.js';

/** What an approved call may pay: this method of this resource, at most this price. */
export interface AgentApprovalGrant {
  keyId: string;
  approvalId: string;
  resourceId: string;
  methodName: string;
  amountMicroUsd: number;
  expiresAt: number;
}

const twoDays = 2 * 24 * 3600;

export function createAgentBudgetStore() {
  const db = dynamo();
  const table = () => tableName('agentBudgets');

  async function conditional(command: UpdateCommand): Promise<boolean> {
    try {
      await db.send(command);
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  return {
    /** Adds `amount` to the day's spend unless that would pass `limit`; false (and nothing added) when it would. */
    reserve: (keyId: string, day: string, amount: number, limit: number, nowSeconds: number) =>
      conditional(
        new UpdateCommand({
          TableName: table(),
          Key: { keyId, entry: `day#${day}` },
          UpdateExpression: 'ADD spentMicroUsd :amount SET expiresAt = :expiresAt',
          ConditionExpression: 'attribute_not_exists(spentMicroUsd) OR spentMicroUsd <= :room',
          ExpressionAttributeValues: { ':amount': amount, ':room': limit - amount, ':expiresAt': nowSeconds + twoDays },
        }),
      ),

    /** Gives back a reservation whose payment did not settle. */
    async release(keyId: string, day: string, amount: number): Promise<void> {
      await db.send(
        new UpdateCommand({
          TableName: table(),
          Key: { keyId, entry: `day#${day}` },
          UpdateExpression: 'ADD spentMicroUsd :amount',
          ExpressionAttributeValues: { ':amount': -amount },
        }),
      );
    },

    async putGrant(grant: AgentApprovalGrant): Promise<void> {
      await db.send(new PutCommand({ TableName: table(), Item: { ...grant, entry: `approval#${grant.approvalId}` } }));
    },

    async getGrant(keyId: string, approvalId: string): Promise<(AgentApprovalGrant & { usedAt?: string }) | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { keyId, entry: `approval#${approvalId}` }, ConsistentRead: true }));
      return Item as (AgentApprovalGrant & { usedAt?: string }) | undefined;
    },

    /** Marks the grant used; false when another call used it first. */
    useGrant: (keyId: string, approvalId: string, usedAt: string) =>
      conditional(
        new UpdateCommand({
          TableName: table(),
          Key: { keyId, entry: `approval#${approvalId}` },
          UpdateExpression: 'SET usedAt = :usedAt',
          ConditionExpression: 'attribute_exists(approvalId) AND attribute_not_exists(usedAt)',
          ExpressionAttributeValues: { ':usedAt': usedAt },
        }),
      ),

    /** A used grant whose payment did not settle may be used again. */
    async unuseGrant(keyId: string, approvalId: string): Promise<void> {
      await db.send(new UpdateCommand({ TableName: table(), Key: { keyId, entry: `approval#${approvalId}` }, UpdateExpression: 'REMOVE usedAt' }));
    },
  };
}

export type AgentBudgetStore = ReturnType<typeof createAgentBudgetStore>;
