import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, queryAll, tableName } from '#platform/dynamo.js';
import { updateExpression } from '#platform/update-expression.js';
import type { ServedResponse } from './errors.js';
import type { PaymentRecord } from './schemas.js';

export interface StoredPayment extends PaymentRecord {
  x402Version: number;
  confirmedAt?: string;
  /** The resource's answer to the paid call, returned again on ALREADY_SETTLED. */
  response?: ServedResponse;
}

/** DynamoDB items stop at 400 KB; a larger answer is served once and not kept. */
const maxStoredResponseBytes = 300_000;

export function createPaymentStore() {
  const db = dynamo();
  const table = () => tableName('payments');
  return {
    /**
     * Claims the transaction hash before anything is submitted: the one conditional write that makes a payment settle
     * once. A failed earlier attempt never moved funds, so it may be claimed again. False when someone else holds it.
     */
    async claim(payment: StoredPayment): Promise<boolean> {
      try {
        await db.send(
          new PutCommand({
            TableName: table(),
            Item: payment,
            ConditionExpression: 'attribute_not_exists(txHash) OR settlementStatus = :failed',
            ExpressionAttributeValues: { ':failed': 'failed' },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    async get(txHash: string): Promise<StoredPayment | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { txHash }, ConsistentRead: true }));
      return Item as StoredPayment | undefined;
    },

    /** pending -> confirmed or failed; refused from any other state. */
    async settle(
      txHash: string,
      outcome: { settlementStatus: 'confirmed'; blockHeight: number; confirmedAt: string } | { settlementStatus: 'failed'; failureReason: string },
    ): Promise<void> {
      const { expression, names, values } = updateExpression(outcome);
      await db.send(
        new UpdateCommand({
          TableName: table(),
          Key: { txHash },
          UpdateExpression: expression,
          ConditionExpression: 'settlementStatus = :pending',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: { ...values, ':pending': 'pending' },
        }),
      );
    },

    async saveResponse(txHash: string, response: ServedResponse): Promise<void> {
      if (Buffer.byteLength(response.body) > maxStoredResponseBytes) return;
      await db.send(
        new UpdateCommand({
          TableName: table(),
          Key: { txHash },
          UpdateExpression: 'SET #response = :response',
          ExpressionAttributeNames: { '#response': 'response' },
          ExpressionAttributeValues: { ':response': response },
        }),
      );
    },

    /** A seller's payments, newest first. */
    listByOwner: (agentOwnerId: string) =>
      queryAll<StoredPayment>({
        TableName: table(),
        IndexName: 'byOwner',
        KeyConditionExpression: 'agentOwnerId = :owner',
        ExpressionAttributeValues: { ':owner': agentOwnerId },
        ScanIndexForward: false,
      }),
  };
}

export type PaymentStore = ReturnType<typeof createPaymentStore>;
