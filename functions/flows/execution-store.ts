// DynamoDB access for a flow's history: a ring of its last 100 execution results (`run#00`..`run#99`, the slot
// is the execution's number modulo 100, so keeping "the last 100" costs no delete) and the pending retries. Results
// are kept as every run record is (platform/run-records.ts) and indexed by owner and start time for the run history.
// Each result also has a lookup item under `execution#<executionId>` naming its flow, owner and slot, so that finding
// an execution by id is one read (docs/decisions.md: a lookup item rather than a second index on the table).
import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, queryAll, tableName } from '#platform/dynamo.js';
import { type TimeRange, listRuns, runExpiry } from '#platform/run-records.js';
import { updateExpression } from '#platform/update-expression.js';
import { type ExecutionResult, type FlowItem, flowLimits } from './model.js';

const day = 24 * 60 * 60;

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

/** What started an execution, kept with its result so a waiting execution's failure policy and a replay have it. */
export interface StoredTrigger {
  type: 'time' | 'event' | 'manual';
  eventType?: string;
  attempt: number;
  originId?: string;
  /** The trigger's data as JSON, while it fits the item with room to spare. */
  dataJson?: string;
}

/** A stored result with what started it and its place in the ring. */
export interface KeptResult {
  result: ExecutionResult;
  executionNumber: number;
  trigger?: StoredTrigger;
}

const maxStoredDataBytes = 64 * 1024;

/** The trigger as stored: its data only while it fits. */
export function storedTrigger(trigger: { type: StoredTrigger['type']; eventType?: string; attempt: number; originId?: string; data: unknown }): StoredTrigger {
  const dataJson = JSON.stringify(trigger.data ?? null);
  return {
    type: trigger.type,
    ...(trigger.eventType && { eventType: trigger.eventType }),
    attempt: trigger.attempt,
    ...(trigger.originId && { originId: trigger.originId }),
    ...(Buffer.byteLength(dataJson) <= maxStoredDataBytes && { dataJson }),
  };
}

/** What the run history shows of a flow's execution. */
export type FlowRunSummary = Pick<ExecutionResult, 'executionId' | 'timestamp' | 'status' | 'duration' | 'cost' | 'error'> & { flowId: string };

const flowRunSummaryFields = ['flowId', 'executionId', 'timestamp', 'status', 'duration', 'cost', 'error'] as const;

/**
 * A result as its item holds it: the script's output as JSON text (`resultJson`), since the document marshaller refuses
 * or changes objects keyed by Object.prototype's names; items written before keep theirs in `result`.
 */
interface StoredResult extends Omit<ExecutionResult, 'result'> {
  result?: unknown;
  resultJson?: string;
  flowId: string;
  /** The flow's owner: the partition of the `byUser` index, sorted by `timestamp`. */
  userId: string;
  trigger?: StoredTrigger;
  entry: string;
  /** The flow's executionCount when it started: orders the ring, where timestamps can tie. */
  sequence: number;
  /** Epoch seconds after which the logs are no longer shown; DynamoDB's TTL removes the item at `expiresAt`. */
  logsUntil: number;
  expiresAt: number;
}

/** Where an execution's result is: written with each result, so an id finds its flow's slot in one read. */
interface ExecutionLookup {
  flowId: string;
  entry: typeof lookupEntry;
  /** The flow holding the result; no `userId` and `timestamp`, so the item stays out of the `byUser` index. */
  resultFlowId: string;
  ownerId: string;
  sequence: number;
  expiresAt: number;
}

const lookupEntry = 'lookup' as const;
const lookupKey = (executionId: string) => ({ flowId: `execution#${executionId}`, entry: lookupEntry });

/** A kept result found by its execution id, with its flow and the flow's owner. */
export interface FoundResult {
  flowId: string;
  ownerId: string;
  kept: KeptResult;
}

const slotEntry = (executionNumber: number) => `run#${String((executionNumber - 1) % flowLimits.historyKept).padStart(2, '0')}`;
const retryEntry = (originId: string) => `retry#${originId}`;

/** A kept result: as shown, plus the script run a waiting one waits on. */
const keptOf = (item: StoredResult): KeptResult => ({
  result: { ...shown(item), ...(item.scriptExecutionId && { scriptExecutionId: item.scriptExecutionId }) },
  executionNumber: item.sequence,
  ...(item.trigger && { trigger: item.trigger }),
});

/** The result as the interface shows it: without the ring's bookkeeping and the internal fields. */
const shown = ({
  flowId: _flow,
  userId: _user,
  entry: _entry,
  sequence: _sequence,
  logsUntil: _logs,
  expiresAt: _expires,
  trigger: _trigger,
  scriptExecutionId: _script,
  resultJson,
  ...result
}: StoredResult): ExecutionResult => ({ ...result, result: resultJson === undefined ? result.result : JSON.parse(resultJson) });

/** The JSON text attribute of a user's value (a script's output, a trigger's data): absent for undefined. */
const jsonText = (value: unknown): string | undefined => (value === undefined ? undefined : JSON.stringify(value));

/** A pending retry as its item holds it: the trigger's data as JSON text, for the same reason as results. */
type StoredRetry = Omit<PendingRetry, 'data'> & { data?: unknown; dataJson?: string; entry: string; expiresAt: number };

const retryOf = ({ entry: _entry, expiresAt: _expires, dataJson, ...retry }: StoredRetry): PendingRetry => ({
  ...retry,
  data: dataJson === undefined ? retry.data : JSON.parse(dataJson),
});

export function createExecutionStore() {
  const db = dynamo();
  const table = () => tableName('flowExecutions');
  const byUser = () => ({ table: table(), index: 'byUser', partitionKey: 'userId', startedAt: 'timestamp' });

  const itemOf = (flow: Pick<FlowItem, 'flowId' | 'userId'>, executionNumber: number, result: ExecutionResult, trigger?: StoredTrigger): StoredResult => {
    const { expiresAt, logsExpireAt } = runExpiry(result.timestamp);
    const { result: output, ...kept } = result;
    return {
      ...kept,
      resultJson: jsonText(output),
      flowId: flow.flowId,
      userId: flow.userId,
      ...(trigger && { trigger }),
      entry: slotEntry(executionNumber),
      sequence: executionNumber,
      logsUntil: logsExpireAt,
      expiresAt,
    };
  };

  /** Batch writes, 25 at a time, each batch until DynamoDB has taken all of it. */
  async function writeAll(requests: Record<string, unknown>[]): Promise<void> {
    for (let index = 0; index < requests.length; index += 25) {
      let pending: Record<string, unknown>[] | undefined = requests.slice(index, index + 25);
      while (pending?.length) {
        const { UnprocessedItems } = await db.send(new BatchWriteCommand({ RequestItems: { [table()]: pending } }));
        pending = UnprocessedItems?.[table()] as Record<string, unknown>[] | undefined;
      }
    }
  }

  const lookupOf = (flow: Pick<FlowItem, 'flowId' | 'userId'>, executionNumber: number, result: ExecutionResult): ExecutionLookup => ({
    ...lookupKey(result.executionId),
    resultFlowId: flow.flowId,
    ownerId: flow.userId,
    sequence: executionNumber,
    expiresAt: runExpiry(result.timestamp).expiresAt,
  });

  return {
    /**
     * `executionNumber` is the flow's executionCount when this execution started (1 for the first). False when the
     * execution was cancelled meanwhile: its record stays cancelled.
     */
    async putResult(flow: Pick<FlowItem, 'flowId' | 'userId'>, executionNumber: number, result: ExecutionResult, trigger?: StoredTrigger): Promise<boolean> {
      // The lookup first: a result that can be read always has one.
      await db.send(new PutCommand({ TableName: table(), Item: lookupOf(flow, executionNumber, result) }));
      try {
        await db.send(
          new PutCommand({
            TableName: table(),
            Item: itemOf(flow, executionNumber, result, trigger),
            ConditionExpression: 'NOT (executionId = :id AND #error.#code = :cancelled)',
            ExpressionAttributeNames: { '#error': 'error', '#code': 'code' },
            ExpressionAttributeValues: { ':id': result.executionId, ':cancelled': 'CANCELLED' },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    /** The result of execution `executionId`, numbered `executionNumber`, once recorded (its slot may still hold an older one). */
    async getResult(flowId: string, executionNumber: number, executionId: string): Promise<ExecutionResult | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { flowId, entry: slotEntry(executionNumber) }, ConsistentRead: true }));
      if (!Item || Item.executionId !== executionId) return undefined;
      return shown(Item as StoredResult);
    },

    /** The kept result of execution `executionId` through its lookup, if it is still kept: two reads, whatever the owner has. */
    async findKept(executionId: string, nowMs: number): Promise<FoundResult | undefined> {
      const lookup = (await db.send(new GetCommand({ TableName: table(), Key: lookupKey(executionId), ConsistentRead: true }))).Item as
        | ExecutionLookup
        | undefined;
      if (!lookup) return undefined;
      const Key = { flowId: lookup.resultFlowId, entry: slotEntry(lookup.sequence) };
      const item = (await db.send(new GetCommand({ TableName: table(), Key, ConsistentRead: true }))).Item as StoredResult | undefined;
      // A slot the ring has given to a newer execution, or a result past its retention, is no longer kept.
      if (!item || item.executionId !== executionId || item.expiresAt <= nowMs / 1000) return undefined;
      return { flowId: lookup.resultFlowId, ownerId: lookup.ownerId, kept: keptOf(item) };
    },

    /** Writes the lookups of results kept before lookups were written (the migration: flow-run operations call it). */
    async putLookups(flow: Pick<FlowItem, 'flowId' | 'userId'>, kept: KeptResult[]): Promise<void> {
      const lookups = kept.map(({ result, executionNumber }) => ({ PutRequest: { Item: lookupOf(flow, executionNumber, result) } }));
      await writeAll(lookups);
    },

    /** The kept results with their triggers and numbers, newest first (replay reads them). */
    async listKept(flowId: string, nowMs: number): Promise<KeptResult[]> {
      const items = await queryAll<StoredResult>({
        TableName: table(),
        KeyConditionExpression: 'flowId = :flowId AND begins_with(#entry, :run)',
        ExpressionAttributeNames: { '#entry': 'entry' },
        ExpressionAttributeValues: { ':flowId': flowId, ':run': 'run#' },
        ConsistentRead: true,
      });
      return items
        .filter((item) => item.expiresAt > nowMs / 1000)
        .sort((a, b) => b.sequence - a.sequence)
        .map(keptOf);
    },

    /** The waiting execution that waits on script run `scriptExecutionId`, if any. */
    async findWaiting(flowId: string, scriptExecutionId: string): Promise<KeptResult | undefined> {
      const items = await queryAll<StoredResult>({
        TableName: table(),
        KeyConditionExpression: 'flowId = :flowId AND begins_with(#entry, :run)',
        FilterExpression: '#status = :waiting AND scriptExecutionId = :script',
        ExpressionAttributeNames: { '#entry': 'entry', '#status': 'status' },
        ExpressionAttributeValues: { ':flowId': flowId, ':run': 'run#', ':waiting': 'waiting', ':script': scriptExecutionId },
        ConsistentRead: true,
      });
      return items[0] && keptOf(items[0]);
    },

    /**
     * Replaces a waiting execution's result with its end, once: false when it was settled already (or replaced). The
     * item's owner, trigger, place in the ring and expiry stay as they were written.
     */
    async settle(flowId: string, kept: KeptResult, result: ExecutionResult): Promise<boolean> {
      const { executionId, timestamp: _timestamp, ...ended } = result;
      // Named even when undefined, so that a field the end does not have (an error, a result) is removed, as a put would.
      const { result: output, ...rest } = ended;
      // `result` is named to remove it from items written before `resultJson`.
      const update = updateExpression({ ...rest, error: result.error, resultJson: jsonText(output), result: undefined }, [], { removeUndefined: true });
      try {
        await db.send(
          new UpdateCommand({
            TableName: table(),
            Key: { flowId, entry: slotEntry(kept.executionNumber) },
            UpdateExpression: update.expression,
            ConditionExpression: '#status = :waiting AND #executionId = :id',
            ExpressionAttributeNames: { ...update.names, '#status': 'status', '#executionId': 'executionId' },
            ExpressionAttributeValues: { ...update.values, ':waiting': 'waiting', ':id': executionId },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
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
        .map((item) => ({ ...shown(item), logs: item.logsUntil > now ? item.logs : [] }));
    },

    /** What the run history shows of the owner's kept executions in the range, across flows, newest first. */
    listByUser: (userId: string, range: TimeRange, nowMs: number): Promise<FlowRunSummary[]> =>
      listRuns<FlowRunSummary>(byUser(), userId, range, {
        attributes: flowRunSummaryFields,
        // Results past their retention that DynamoDB's TTL has not removed yet are no longer shown.
        filter: { expression: 'expiresAt > :now', values: { ':now': nowMs / 1000 } },
      }),

    async putRetry(retry: PendingRetry): Promise<void> {
      // The item outlives its due time by a day, for a firing the bus delivers late.
      const { data, ...kept } = retry;
      const item: StoredRetry = {
        ...kept,
        dataJson: jsonText(data),
        entry: retryEntry(retry.originId),
        expiresAt: Math.floor(Date.parse(retry.dueAt) / 1000) + day,
      };
      await db.send(new PutCommand({ TableName: table(), Item: item }));
    },

    async getRetry(flowId: string, originId: string): Promise<PendingRetry | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { flowId, entry: retryEntry(originId) }, ConsistentRead: true }));
      return Item && retryOf(Item as StoredRetry);
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
      return (Items as StoredRetry[]).map(retryOf);
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
      await writeAll(keys.map((key) => ({ DeleteRequest: { Key: key } })));
    },
  };
}

export type ExecutionStore = ReturnType<typeof createExecutionStore>;
