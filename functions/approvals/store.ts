// Approvals and each approver's inbox of pending ones in DynamoDB. Every status change is one transaction
// conditioned on `pending`, so two decisions (or a decision and the timeout) never both win.
import { BatchGetCommand, type BatchGetCommandOutput, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, queryAll, tableName, unlessConditionFails } from '#platform/dynamo.js';
import type { Approval, ApprovalStatus, Decision } from './schemas.js';

export interface StoredApproval extends Approval {
  /** Whose run waits: its events and its self-approval rule. */
  userId: string;
  /** The script's owner, who may approve their own run when they are the only approver. */
  ownerId: string;
  /** SHA-256 of each approver's signed-link token, by approver userId. */
  tokenHashes: Record<string, string>;
  retainUntil: number;
}

export interface Settlement {
  status: Exclude<ApprovalStatus, 'pending'>;
  decision?: Decision;
  decidedBy?: string;
  comment?: string;
  decidedAt?: string;
}

const batchGetLimit = 100;

export function createApprovalStore() {
  const db = dynamo();
  const inboxKeys = (approval: StoredApproval) => approval.approvers.map(({ userId }) => ({ approverId: userId, approvalId: approval.approvalId }));

  return {
    async create(approval: StoredApproval): Promise<void> {
      await db.send(
        new TransactWriteCommand({
          TransactItems: [
            { Put: { TableName: tableName('approvals'), Item: approval, ConditionExpression: 'attribute_not_exists(approvalId)' } },
            ...inboxKeys(approval).map((key) => ({
              Put: {
                TableName: tableName('approverInbox'),
                Item: { ...key, requestedAt: approval.requestedAt, retainUntil: Math.ceil(Date.parse(approval.expiresAt) / 1000) },
              },
            })),
          ],
        }),
      );
    },

    async get(approvalId: string): Promise<StoredApproval | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName('approvals'), Key: { approvalId }, ConsistentRead: true }));
      return Item as StoredApproval | undefined;
    },

    /** Moves a pending approval to its end state and empties it from the inboxes; false when it was not pending any more. */
    async settle(approval: StoredApproval, settlement: Settlement): Promise<boolean> {
      const fields = Object.entries(settlement).filter(([, value]) => value !== undefined);
      const written = await unlessConditionFails(
        db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: tableName('approvals'),
                  Key: { approvalId: approval.approvalId },
                  UpdateExpression: `SET ${fields.map(([name]) => `#${name} = :${name}`).join(', ')}`,
                  ConditionExpression: '#status = :pending',
                  ExpressionAttributeNames: Object.fromEntries(fields.map(([name]) => [`#${name}`, name])),
                  ExpressionAttributeValues: { ...Object.fromEntries(fields.map(([name, value]) => [`:${name}`, value])), ':pending': 'pending' },
                },
              },
              ...inboxKeys(approval).map((key) => ({ Delete: { TableName: tableName('approverInbox'), Key: key } })),
            ],
          }),
        ),
      );
      return written !== undefined;
    },

    /** The approvals in an approver's inbox (pending when written; the caller filters what has expired since). */
    async pendingFor(approverId: string): Promise<StoredApproval[]> {
      const keys = await queryAll<{ approvalId: string }>({
        TableName: tableName('approverInbox'),
        KeyConditionExpression: 'approverId = :approverId',
        ExpressionAttributeValues: { ':approverId': approverId },
        ProjectionExpression: 'approvalId',
      });
      const approvals: StoredApproval[] = [];
      for (let start = 0; start < keys.length; start += batchGetLimit) {
        let pending: Record<string, unknown>[] | undefined = keys.slice(start, start + batchGetLimit).map(({ approvalId }) => ({ approvalId }));
        while (pending?.length) {
          const answer: BatchGetCommandOutput = await db.send(
            new BatchGetCommand({ RequestItems: { [tableName('approvals')]: { Keys: pending, ConsistentRead: true } } }),
          );
          approvals.push(...((answer.Responses?.[tableName('approvals')] ?? []) as StoredApproval[]));
          pending = answer.UnprocessedKeys?.[tableName('approvals')]?.Keys;
        }
      }
      return approvals;
    },
  };
}

export type ApprovalStore = ReturnType<typeof createApprovalStore>;
