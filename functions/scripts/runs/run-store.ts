// The run table as one store of every run: a run found by its id whatever its kind, a user's runs newest first through
// the one `byUser` index (owner and start time), and the writes of flows' runs. A script run's own writes (its counts,
// its logs, its claim) stay with execution-store.ts, on the same table.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, tableName, unlessConditionFails } from '#platform/dynamo.js';
import { type TimeRange, countRuns, listRuns } from '#platform/run-records.js';
import type { BlobStore } from '#platform/ports.js';
import { updateExpression } from '#platform/update-expression.js';
import { type StepsPage, executionOf } from './execution-store.js';
import { type Execution, type RunSummary, runSummaryFields } from '../model.js';
import type { FlowRunEnd, RunLineage, StoredFlowRun } from './run-record.js';
import { createJournal, stepViews } from '../../durable/api.js';
import type { StepView } from '../../durable/api.js';

/** A stored run of either kind; records written before kinds are script runs. */
export type StoredRun = (Execution & RunLineage & { kind: 'script' }) | StoredFlowRun;

/** What a list of runs shows of each, of either kind. */
export const runListFields = [...runSummaryFields, 'kind', 'flowId', 'parentExecutionId', 'rootExecutionId', 'origin'] as const;

/** A listed run of either kind: a script run's summary, or a flow run's fields of the same names. */
export type ListedRun = (RunSummary & RunLineage & { kind?: 'script' }) | Pick<StoredFlowRun, (typeof runListFields)[number] & keyof StoredFlowRun>;

const storedRun = (item: Record<string, unknown>): StoredRun =>
  item.kind === 'flow' ? (item as unknown as StoredFlowRun) : { ...executionOf(item), kind: 'script' };

/** Migrated records written at once. */
const migrateAtOnce = 25;

export function createRunStore(results: () => BlobStore) {
  const db = dynamo();
  const runs = () => tableName('scriptExecutions');
  const byUser = () => ({ table: runs(), index: 'byUser', partitionKey: 'userId', startedAt: 'createdAt' });
  const journal = createJournal(results);

  return {
    async get(executionId: string, consistent = false): Promise<StoredRun | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: runs(), Key: { executionId }, ConsistentRead: consistent }));
      return Item && storedRun(Item);
    },

    /** A page of the run's durable steps from the journal (none for a run that never checkpointed). */
    async steps(executionId: string, page: StepsPage): Promise<{ steps: StepView[]; stepsNextCursor?: string }> {
      const { entries, next } = await journal.page(executionId, page);
      return { steps: stepViews(entries), ...(next !== undefined && { stepsNextCursor: String(next) }) };
    },

    /** The user's runs of both kinds started within the range, newest first (with `first`, that many), the listed fields only. */
    listByUser: (userId: string, range: TimeRange, first?: number): Promise<ListedRun[]> =>
      listRuns<ListedRun>(byUser(), userId, range, { attributes: runListFields, first }),

    countByUser: (userId: string, range: TimeRange): Promise<number> => countRuns(byUser(), userId, range),

    /** A flow run's record as it starts or as an invocation of it ends; false when it was cancelled meanwhile (the cancellation stands). */
    async putFlowRun(run: StoredFlowRun): Promise<boolean> {
      try {
        await db.send(
          new PutCommand({
            TableName: runs(),
            Item: run,
            ConditionExpression: 'attribute_not_exists(#status) OR #status <> :cancelled',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':cancelled': 'cancelled' },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    /** A waiting (or running) flow run's end, once: false when it had ended already. Lineage, trigger and owner stay. */
    async endFlowRun(executionId: string, end: FlowRunEnd): Promise<boolean> {
      const { output, ...fields } = end;
      const update = updateExpression({ ...fields, outputJson: output === undefined ? undefined : JSON.stringify(output) }, [], { removeUndefined: true });
      try {
        await db.send(
          new UpdateCommand({
            TableName: runs(),
            Key: { executionId },
            UpdateExpression: update.expression,
            ConditionExpression: '#kind = :flow AND #status IN (:running, :waiting)',
            ExpressionAttributeNames: { ...update.names, '#kind': 'kind', '#status': 'status' },
            ExpressionAttributeValues: { ...update.values, ':flow': 'flow', ':running': 'running', ':waiting': 'waiting' },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    /** Flow runs kept only in their flows' rings before the one record: written once each, never over a newer write. */
    async putMigrated(migrated: StoredFlowRun[]): Promise<void> {
      const put = (run: StoredFlowRun) =>
        unlessConditionFails(db.send(new PutCommand({ TableName: runs(), Item: run, ConditionExpression: 'attribute_not_exists(executionId)' })));
      for (let index = 0; index < migrated.length; index += migrateAtOnce) await Promise.all(migrated.slice(index, index + migrateAtOnce).map(put));
    },
  };
}

export type RunStore = ReturnType<typeof createRunStore>;
