// Approvals and each approver's inbox of pending ones in DynamoDB. Every status change is one transaction
// conditioned on `pending`, so two decisions (or a decision and the run's end) never both win. The inbox also holds,
// per approver and requester, the requester's pending approvals there: the bound on what others can ask of a user.
import { BatchGetCommand, type BatchGetCommandOutput, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { ConflictError } from '#platform/errors.js';
import { dynamo, tableName } from '#platform/dynamo.js';
import type { Approval, ApprovalStatus, Decision } from './schemas.js';

export interface StoredApproval extends Approval {
  /** Whose run waits, the requester: its events and its self-approval rule. */
  userId: string;
  /** The script's owner, who may approve their own run when they are the only approver. */
  ownerId: string;
  /** SHA-256 of each approver's signed-link token, by approver userId. */
  tokenHashes: Record<string, string>;
  /** Approvers (not the requester) whose bound this approval counts against; absent on approvals older than the bound. */
  countedApprovers?: string[];
  retainUntil: number;
}

export interface Settlement {
  status: Exclude<ApprovalStatus, 'pending' | 'expired'>;
  decision?: Decision;
  decidedBy?: string;
  comment?: string;
  decidedAt?: string;
  allowReuse?: boolean;
  cancelReason?: string;
}

/** What one requester has pending in one approver's inbox: approval id -> its expiry (epoch seconds). */
interface RequesterCount {
  version: number;
  pending: Record<string, number>;
}

const batchGetLimit = 100;
/** Writes that lose a race on a requester's count (two requests of one requester at once) read it again. */
const maxAttempts = 8;
/** The inbox index by expiry: a page of what is still pending is one Query, whatever has expired. */
export const inboxByExpiry = 'byExpiry';
/** Counts live in the inbox partition under a key no approval id takes (ids start with `apr_`). */
const countKey = (requesterId: string) => `#from#${requesterId}`;

/** The reasons DynamoDB gives for a cancelled transaction, one per item. */
const cancellationCodes = (error: unknown): string[] | undefined =>
  error instanceof Error && error.name === 'TransactionCanceledException'
    ? ((error as { CancellationReasons?: Array<{ Code?: string }> }).CancellationReasons ?? []).map((reason) => reason.Code ?? 'None')
    : undefined;

export function createApprovalStore() {
  const db = dynamo();
  const inboxKeys = (approval: StoredApproval) => approval.approvers.map(({ userId }) => ({ approverId: userId, approvalId: approval.approvalId }));

  async function readCount(approverId: string, requesterId: string): Promise<RequesterCount | undefined> {
    const { Item } = await db.send(
      new GetCommand({ TableName: tableName('approverInbox'), Key: { approverId, approvalId: countKey(requesterId) }, ConsistentRead: true }),
    );
    return Item as RequesterCount | undefined;
  }

  return {
    /**
     * Stores the approval, its inbox items and its place in each counted approver's bound, unless an approver has
     * `limit` pending approvals of this requester already: then nothing is written and those approvers are answered.
     */
    async create(approval: StoredApproval, nowSeconds: number, limit: number): Promise<{ atLimit: string[] }> {
      const counted = approval.countedApprovers ?? [];
      const until = Math.ceil(Date.parse(approval.expiresAt) / 1000);
      for (let attempt = 1; ; attempt++) {
        const counts = await Promise.all(counted.map((approverId) => readCount(approverId, approval.userId)));
        const live = counts.map((count) => Object.fromEntries(Object.entries(count?.pending ?? {}).filter(([, expiry]) => expiry > nowSeconds)));
        const atLimit = counted.filter((_, index) => Object.keys(live[index]!).length >= limit);
        if (atLimit.length) return { atLimit };
        try {
          await db.send(
            new TransactWriteCommand({
              TransactItems: [
                { Put: { TableName: tableName('approvals'), Item: approval, ConditionExpression: 'attribute_not_exists(approvalId)' } },
                ...inboxKeys(approval).map((key) => ({
                  Put: { TableName: tableName('approverInbox'), Item: { ...key, requestedAt: approval.requestedAt, retainUntil: until } },
                })),
                ...counted.map((approverId, index) => ({
                  Put: {
                    TableName: tableName('approverInbox'),
                    Item: {
                      approverId,
                      approvalId: countKey(approval.userId),
                      version: (counts[index]?.version ?? 0) + 1,
                      pending: { ...live[index], [approval.approvalId]: until },
                    },
                    ConditionExpression: counts[index] ? '#version = :version' : 'attribute_not_exists(#version)',
                    ExpressionAttributeNames: { '#version': 'version' },
                    ...(counts[index] && { ExpressionAttributeValues: { ':version': counts[index].version } }),
                  },
                })),
              ],
            }),
          );
          return { atLimit: [] };
        } catch (error) {
          if (!cancellationCodes(error)) throw error;
          if (attempt === maxAttempts) throw new ConflictError('too many approvals were asked of the same approvers at once: try again');
        }
      }
    },

    async get(approvalId: string): Promise<StoredApproval | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: tableName('approvals'), Key: { approvalId }, ConsistentRead: true }));
      return Item as StoredApproval | undefined;
    },

    /**
     * Moves a pending approval to its end state, empties it from the inboxes and frees its place in the approvers'
     * bounds; false when it was not pending any more.
     */
    async settle(approval: StoredApproval, settlement: Settlement): Promise<boolean> {
      const fields = Object.entries(settlement).filter(([, value]) => value !== undefined);
      for (let attempt = 1; ; attempt++) {
        try {
          await db.send(
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
                ...(approval.countedApprovers ?? []).map((approverId) => ({
                  Update: {
                    TableName: tableName('approverInbox'),
                    Key: { approverId, approvalId: countKey(approval.userId) },
                    UpdateExpression: 'REMOVE #pending.#approval',
                    ExpressionAttributeNames: { '#pending': 'pending', '#approval': approval.approvalId },
                  },
                })),
              ],
            }),
          );
          return true;
        } catch (error) {
          const codes = cancellationCodes(error);
          if (!codes) throw error;
          // Another write to one of the items at the same moment (a request counting against the same bound): again.
          if (codes[0] === 'ConditionalCheckFailed' || attempt === maxAttempts || !codes.includes('TransactionConflict')) return false;
        }
      }
    },

    /** One page of an approver's approvals still pending at `nowSeconds`, soonest expiry first: one Query, one BatchGet. */
    async pendingPage(approverId: string, nowSeconds: number, page: { limit: number; offset: number }): Promise<StoredApproval[]> {
      const { Items = [] } = await db.send(
        new QueryCommand({
          TableName: tableName('approverInbox'),
          IndexName: inboxByExpiry,
          KeyConditionExpression: 'approverId = :approverId AND retainUntil > :now',
          ExpressionAttributeValues: { ':approverId': approverId, ':now': nowSeconds },
          ProjectionExpression: 'approvalId',
          Limit: page.offset + page.limit,
        }),
      );
      const ids = Items.slice(page.offset).map((item) => item.approvalId as string);
      const found = new Map<string, StoredApproval>();
      for (let start = 0; start < ids.length; start += batchGetLimit) {
        let keys: Record<string, unknown>[] | undefined = ids.slice(start, start + batchGetLimit).map((approvalId) => ({ approvalId }));
        while (keys?.length) {
          const answer: BatchGetCommandOutput = await db.send(
            new BatchGetCommand({ RequestItems: { [tableName('approvals')]: { Keys: keys, ConsistentRead: true } } }),
          );
          for (const approval of (answer.Responses?.[tableName('approvals')] ?? []) as StoredApproval[]) found.set(approval.approvalId, approval);
          keys = answer.UnprocessedKeys?.[tableName('approvals')]?.Keys;
        }
      }
      // The index orders by the expiry's second, and ties by the random id: within the page, by expiry then request time.
      return ids
        .flatMap((approvalId) => found.get(approvalId) ?? [])
        .sort((a, b) => a.expiresAt.localeCompare(b.expiresAt) || a.requestedAt.localeCompare(b.requestedAt));
    },
  };
}

export type ApprovalStore = ReturnType<typeof createApprovalStore>;
