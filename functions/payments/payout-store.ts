// DynamoDB access of the payout ledger: one entry per reference-client payment owed to an owner, the batches that
// pay them out, and owners' payment settings. Every move is conditional on the state it leaves, so concurrent runs
// (schedule, threshold, reconciliation) never move an entry twice.
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, queryAll, tableName, unlessConditionFails } from '#platform/dynamo.js';

export type PayoutEntryStatus = 'owed' | 'batched' | 'paid';
export type PayoutBatchStatus = 'submitted' | 'paid' | 'failed';

export interface PayoutEntry {
  /** The payment this share comes from. */
  txHash: string;
  ownerId: string;
  asset: string;
  /** The payment record's agentOwnerAmount, atomic units. */
  amount: string;
  payoutStatus: PayoutEntryStatus;
  createdAt: string;
  /** Set only while owed: the key of the owner's owed index. */
  owedOwner?: string;
  batchId?: string;
  batchedAt?: string;
  paidAt?: string;
  attempts: number;
  lastFailure?: string;
}

export interface PayoutBatch {
  batchId: string;
  ownerId: string;
  asset: string;
  walletAddress: string;
  /** The owed entries' sum: the owner receives it less `cost`. */
  amount: string;
  /** What the payout cost the fee payer (fee, and rent of the owner's token account when it created it), in the asset's units; absent on batches from before payouts carried their cost. */
  cost?: string;
  txHashes: string[];
  /** The payout transaction's signature, known before it is sent: reconciliation asks the chain about it. */
  signature: string;
  blockhash: string;
  batchStatus: PayoutBatchStatus;
  createdAt: string;
  concludedAt?: string;
  blockHeight?: number;
  failureReason?: string;
}

/** SET (and REMOVE) of named fields, kept in one place so it can move to a shared update helper. */
function setFields(fields: Record<string, unknown>, remove: string[] = []) {
  const names = Object.keys(fields);
  const set = names.map((name) => `#${name} = :${name}`).join(', ');
  return {
    UpdateExpression: `${set ? `SET ${set}` : ''}${remove.length ? ` REMOVE ${remove.map((name) => `#${name}`).join(', ')}` : ''}`.trim(),
    ExpressionAttributeNames: Object.fromEntries([...names, ...remove].map((name) => [`#${name}`, name])),
    ExpressionAttributeValues: Object.fromEntries(names.map((name) => [`:${name}`, fields[name]])),
  };
}

/** An update whose condition compares fields to values, e.g. `{ payoutStatus: 'owed' }`. */
function conditional(fields: Record<string, unknown>, expected: Record<string, unknown>, remove: string[] = []) {
  const update = setFields(fields, remove);
  const conditions = Object.keys(expected).map((name) => `#c_${name} = :c_${name}`);
  return {
    ...update,
    ConditionExpression: conditions.join(' AND '),
    ExpressionAttributeNames: { ...update.ExpressionAttributeNames, ...Object.fromEntries(Object.keys(expected).map((name) => [`#c_${name}`, name])) },
    ExpressionAttributeValues: {
      ...update.ExpressionAttributeValues,
      ...Object.fromEntries(Object.entries(expected).map(([name, value]) => [`:c_${name}`, value])),
    },
  };
}

/** True when the conditional write took effect. */
const applied = async (write: Promise<object>): Promise<boolean> => (await unlessConditionFails(write)) !== undefined;

export function createPayoutStore() {
  const db = dynamo();
  const entries = () => tableName('payouts');
  const batches = () => tableName('payoutBatches');
  const settings = () => tableName('paymentSettings');
  return {
    /**
     * A reference-client payment confirmed and its owner's share owed, in one transaction: the payment leaves
     * `pending` only together with the entry that pays the owner. False when the payment was no longer pending.
     */
    confirmOwed(txHash: string, confirmed: { blockHeight: number; confirmedAt: string }, entry: PayoutEntry): Promise<boolean> {
      return applied(
        db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Update: {
                  TableName: tableName('payments'),
                  Key: { txHash },
                  ...conditional({ ...confirmed, settlementStatus: 'confirmed' }, { settlementStatus: 'pending' }),
                },
              },
              { Put: { TableName: entries(), Item: entry, ConditionExpression: 'attribute_not_exists(txHash)' } },
            ],
          }),
        ),
      );
    },

    getEntry: async (txHash: string) =>
      (await db.send(new GetCommand({ TableName: entries(), Key: { txHash }, ConsistentRead: true }))).Item as PayoutEntry | undefined,

    entriesIn: (payoutStatus: PayoutEntryStatus) =>
      queryAll<PayoutEntry>({
        TableName: entries(),
        IndexName: 'byStatus',
        KeyConditionExpression: 'payoutStatus = :status',
        ExpressionAttributeValues: { ':status': payoutStatus },
      }),

    owedTo: (ownerId: string) =>
      queryAll<PayoutEntry>({
        TableName: entries(),
        IndexName: 'owedByOwner',
        KeyConditionExpression: 'owedOwner = :owner',
        ExpressionAttributeValues: { ':owner': ownerId },
      }),

    /** owed -> batched; false when another run took it first. */
    claim: (txHash: string, batchId: string, batchedAt: string) =>
      applied(
        db.send(
          new UpdateCommand({
            TableName: entries(),
            Key: { txHash },
            ...conditional({ payoutStatus: 'batched', batchId, batchedAt }, { payoutStatus: 'owed' }, ['owedOwner']),
          }),
        ),
      ),

    /** batched -> paid, only by the batch that claimed it. */
    markPaid: (txHash: string, batchId: string, paidAt: string) =>
      applied(
        db.send(
          new UpdateCommand({ TableName: entries(), Key: { txHash }, ...conditional({ payoutStatus: 'paid', paidAt }, { payoutStatus: 'batched', batchId }) }),
        ),
      ),

    /** batched -> owed again (its batch failed or never existed), counting the attempt. */
    release: (entry: PayoutEntry, batchId: string, failure: string) =>
      applied(
        db.send(
          new UpdateCommand({
            TableName: entries(),
            Key: { txHash: entry.txHash },
            ...conditional(
              { payoutStatus: 'owed', owedOwner: entry.ownerId, attempts: entry.attempts + 1, lastFailure: failure },
              { payoutStatus: 'batched', batchId },
              ['batchId', 'batchedAt'],
            ),
          }),
        ),
      ),

    putBatch: (batch: PayoutBatch) => db.send(new PutCommand({ TableName: batches(), Item: batch, ConditionExpression: 'attribute_not_exists(batchId)' })),

    getBatch: async (batchId: string) =>
      (await db.send(new GetCommand({ TableName: batches(), Key: { batchId }, ConsistentRead: true }))).Item as PayoutBatch | undefined,

    /** submitted -> paid or failed; false when another run concluded it first. */
    concludeBatch: (
      batchId: string,
      outcome: { batchStatus: 'paid'; blockHeight: number; concludedAt: string } | { batchStatus: 'failed'; failureReason: string; concludedAt: string },
    ) => applied(db.send(new UpdateCommand({ TableName: batches(), Key: { batchId }, ...conditional(outcome, { batchStatus: 'submitted' }) }))),

    batchesIn: (batchStatus: PayoutBatchStatus) =>
      queryAll<PayoutBatch>({
        TableName: batches(),
        IndexName: 'byStatus',
        KeyConditionExpression: 'batchStatus = :status',
        ExpressionAttributeValues: { ':status': batchStatus },
      }),

    /** An owner's payouts, newest first. */
    batchesOf: (ownerId: string) =>
      queryAll<PayoutBatch>({
        TableName: batches(),
        IndexName: 'byOwner',
        KeyConditionExpression: 'ownerId = :owner',
        ExpressionAttributeValues: { ':owner': ownerId },
        ScanIndexForward: false,
      }),

    async splitOfferOnly(userId: string): Promise<boolean> {
      const { Item } = await db.send(new GetCommand({ TableName: settings(), Key: { userId } }));
      return Item?.splitOfferOnly === true;
    },

    setSplitOfferOnly: (userId: string, splitOfferOnly: boolean, updatedAt: string) =>
      db.send(new UpdateCommand({ TableName: settings(), Key: { userId }, ...setFields({ splitOfferOnly, updatedAt }) })),
  };
}

export type PayoutStore = ReturnType<typeof createPayoutStore>;
