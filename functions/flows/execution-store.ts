// DynamoDB access for a flow's history: a ring of its last 100 execution results (`run#00`..`run#99`, the slot
// is the execution's number modulo 100, so keeping "the last 100" costs no delete) and the pending retries.
import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, queryAll, tableName } from '#platform/dynamo.js';
import { type ExecutionResult, flowLimits } from './model.js';

const day = 24 * 60 * 60;
/** Execution results are kept 90 days, their logs 30. */
export const retention = { resultsSeconds: 90 * day, logsSeconds: 30 * day } as const;

/** What a retry runs again: the trigger's data, and how many attempts came before. */
export interface PendingRetry {
  flowId: string;
  /** The execution whose failure started this chain of retries. */
  originId: string;
  userId: string;
  /** 1 for the first retry. */
  attempt: number;
  trigger: { type: 'time' | 'event' | 'manual'; eventType?: string };
  data: unknown;
  dueAt: string;
}

interface StoredResult extends ExecutionResult {
  flowId: string;
  entry: string;
  /** The flow's executionCount when it started: orders the ring, where timestamps can tie. */
  sequence: number;
  /** Epoch seconds after which the logs are no longer shown; DynamoDB's TTL removes the item at `expiresAt`. */
  logsUntil: number;
  expiresAt: number;
}

const slotEntry = (executionNumber: number) => `run#${String((executionNumber - 1) % flowLimits.historyKept).padStart(2, '0')}`;
const retryEntry = (originId: string) => `retry#${originId}`;

export function createExecutionStore() {
  const db = dynamo();
  const table = () => tableName('flowExecutions');

  return {
    /** `executionNumber` is the flow's executionCount when this execution started (1 for the first). */
    async putResult(flowId: string, executionNumber: number, result: ExecutionResult): Promise<void> {
      const started = Math.floor(Date.parse(result.timestamp) / 1000);
      const item: StoredResult = {
        ...result,
        flowId,
        entry: slotEntry(executionNumber),
        sequence: executionNumber,
        logsUntil: started + retention.logsSeconds,
        expiresAt: started + retention.resultsSeconds,
      };
      await db.send(new PutCommand({ TableName: table(), Item: item }));
    },

    /** The result of execution `executionId`, numbered `executionNumber`, once recorded (its slot may still hold an older one). */
    async getResult(flowId: string, executionNumber: number, executionId: string): Promise<ExecutionResult | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { flowId, entry: slotEntry(executionNumber) }, ConsistentRead: true }));
      if (!Item || Item.executionId !== executionId) return undefined;
      const { flowId: _flow, entry: _entry, sequence: _sequence, logsUntil: _logs, expiresAt: _expires, ...result } = Item as StoredResult;
      return result;
    },

    /** The kept results, newest first; logs older than 30 days are left out. */
    async listResults(flowId: string, nowMs: number): Promise<ExecutionResult[]> {
      const items = await queryAll<StoredResult>({
        TableName: table(),
        KeyConditionExpression: 'flowId = :flowId AND begins_with(#entry, :run)',
        ExpressionAttributeNames: { '#entry': 'entry' },
        ExpressionAttributeValues: { ':flowId': flowId, ':run': 'run#' },
      });
      const now = nowMs / 1000;
      return items
        .filter((item) => item.expiresAt > now)
        .sort((a, b) => b.sequence - a.sequence)
        .map(({ flowId: _flow, entry: _entry, sequence: _sequence, logsUntil, expiresAt: _expires, ...result }) => ({
          ...result,
          logs: logsUntil > now ? result.logs : [],
        }));
    },

    async putRetry(retry: PendingRetry): Promise<void> {
      // The item outlives its due time by a day, for a firing the bus delivers late.
      const item = { ...retry, entry: retryEntry(retry.originId), expiresAt: Math.floor(Date.parse(retry.dueAt) / 1000) + day };
      await db.send(new PutCommand({ TableName: table(), Item: item }));
    },

    async getRetry(flowId: string, originId: string): Promise<PendingRetry | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { flowId, entry: retryEntry(originId) }, ConsistentRead: true }));
      if (!Item) return undefined;
      const { entry: _entry, expiresAt: _expires, ...retry } = Item;
      return retry as PendingRetry;
    },

    deleteRetry: async (flowId: string, originId: string) =>
      void (await db.send(new DeleteCommand({ TableName: table(), Key: { flowId, entry: retryEntry(originId) } }))),

    /** Pending retries of a flow, to cancel their firings when it is deleted. */
    async listRetries(flowId: string): Promise<PendingRetry[]> {
      const { Items = [] } = await db.send(
        new QueryCommand({
          TableName: table(),
          KeyConditionExpression: 'flowId = :flowId AND begins_with(#entry, :retry)',
          ExpressionAttributeNames: { '#entry': 'entry' },
          ExpressionAttributeValues: { ':flowId': flowId, ':retry': 'retry#' },
        }),
      );
      return Items as PendingRetry[];
    },

    /** Everything the flow has here: its history and its pending retries. */
    async removeAll(flowId: string): Promise<void> {
      const keys = await queryAll<{ flowId: string; entry: string }>({
        TableName: table(),
        KeyConditionExpression: 'flowId = :flowId',
        ExpressionAttributeValues: { ':flowId': flowId },
        ProjectionExpression: 'flowId, #entry',
        ExpressionAttributeNames: { '#entry': 'entry' },
      });
      for (let index = 0; index < keys.length; index += 25) {
        let pending: Record<string, unknown>[] | undefined = keys.slice(index, index + 25).map((key) => ({ DeleteRequest: { Key: key } }));
        while (pending?.length) {
          const { UnprocessedItems } = await db.send(new BatchWriteCommand({ RequestItems: { [table()]: pending } }));
          pending = UnprocessedItems?.[table()] as Record<string, unknown>[] | undefined;
        }
      }
    },
  };
}

export type ExecutionStore = ReturnType<typeof createExecutionStore>;
