// DynamoDB for debounce and batch windows: one item per open window in scriptCounters (`gather#...`), beside its
// queued run record in the run table. A window opens with its record in one transaction, every trigger is one
// conditional update of the window, and it closes with its record in one transaction: the record then holds what the
// run starts with, so a crash between closing and starting loses nothing.
import { GetCommand, PutCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, tableName, unlessConditionFails } from '#platform/dynamo.js';
import { executionOf } from './execution-store.js';
import type { Execution } from '../model.js';

/** An open window as stored: its run, and what its triggers brought so far. */
export interface GatherWindow {
  counter: string;
  executionId: string;
  reason: 'debounce' | 'batch';
  /** Epoch ms of its first and its last trigger. */
  firstAt: number;
  lastAt: number;
  count: number;
  /** JSON bytes of its triggers' data (batch) or of the last trigger's (debounce). */
  bytes: number;
  /** Batch: each trigger's data as JSON text, in arrival order. */
  items?: string[];
  /** Debounce: the last trigger's data as JSON text. */
  lastJson?: string;
  /** Debounce: the quiet period that closes it. */
  periodMs?: number;
  /** Epoch ms by which it closes however many triggers come: batch's timeout, debounce's maxWait. */
  closeBy?: number;
  /** The trigger the run reports (the last one's for debounce, the first one's for batch), as JSON text. */
  triggerJson: string;
  expiresAt: number;
}

/** A closed window's run: what it starts with, kept on its queued record. */
export interface GatheredInput {
  inputJson?: string;
  batchJson?: string;
  triggerJson: string;
}

/** The queued record's attributes a window's updates name. */
const names = { '#status': 'status', '#queue': 'queue', '#until': 'until' };

export function createGatherStore() {
  const db = dynamo();
  const counters = () => tableName('scriptCounters');
  const executions = () => tableName('scriptExecutions');

  return {
    /** Opens a window with its queued record; false when a window for that counter is open already. */
    async open(window: GatherWindow, queued: Execution): Promise<boolean> {
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Put: {
                  TableName: counters(),
                  Item: window,
                  ConditionExpression: 'attribute_not_exists(#counter)',
                  ExpressionAttributeNames: { '#counter': 'counter' },
                },
              },
              { Put: { TableName: executions(), Item: { ...queued, outputJson: 'null' }, ConditionExpression: 'attribute_not_exists(executionId)' } },
            ],
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    /** Debounce: the trigger becomes the window's last; undefined when no window is open. */
    async touch(counter: string, trigger: { dataJson: string; triggerJson: string; at: number }): Promise<GatherWindow | undefined> {
      const answer = await unlessConditionFails(
        db.send(
          new UpdateCommand({
            TableName: counters(),
            Key: { counter },
            UpdateExpression: 'SET lastJson = :data, triggerJson = :trigger, lastAt = :at, bytes = :bytes ADD #count :one',
            ConditionExpression: 'attribute_exists(executionId)',
            ExpressionAttributeNames: { '#count': 'count' },
            ExpressionAttributeValues: {
              ':data': trigger.dataJson,
              ':trigger': trigger.triggerJson,
              ':at': trigger.at,
              ':bytes': Buffer.byteLength(trigger.dataJson),
              ':one': 1,
            },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      return answer?.Attributes as GatherWindow | undefined;
    },

    /** Batch: appends the trigger's data while the window has room; undefined when none is open or it is full. */
    async append(counter: string, itemJson: string, bounds: { maxSize: number; maxBytes: number }, at: number): Promise<GatherWindow | undefined> {
      const bytes = Buffer.byteLength(itemJson);
      const answer = await unlessConditionFails(
        db.send(
          new UpdateCommand({
            TableName: counters(),
            Key: { counter },
            UpdateExpression: 'SET #items = list_append(#items, :item), lastAt = :at ADD #count :one, bytes :bytes',
            ConditionExpression: 'attribute_exists(executionId) AND #count < :maxSize AND bytes <= :room',
            ExpressionAttributeNames: { '#count': 'count', '#items': 'items' },
            ExpressionAttributeValues: {
              ':item': [itemJson],
              ':at': at,
              ':one': 1,
              ':bytes': bytes,
              ':maxSize': bounds.maxSize,
              ':room': bounds.maxBytes - bytes,
            },
            ReturnValues: 'ALL_NEW',
          }),
        ),
      );
      return answer?.Attributes as GatherWindow | undefined;
    },

    async window(counter: string): Promise<GatherWindow | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: counters(), Key: { counter }, ConsistentRead: true }));
      return Item as GatherWindow | undefined;
    },

    /** The window's run, while it is still queued. */
    async queued(executionId: string): Promise<(Execution & Partial<GatheredInput> & { closedAt?: string }) | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: executions(), Key: { executionId }, ConsistentRead: true }));
      return Item && Item.status === 'queued' ? (executionOf(Item) as Execution & Partial<GatheredInput> & { closedAt?: string }) : undefined;
    },

    /** A debounce window that a later trigger moved: its record says the new close. */
    async postpone(executionId: string, until: string): Promise<void> {
      await unlessConditionFails(
        db.send(
          new UpdateCommand({
            TableName: executions(),
            Key: { executionId },
            UpdateExpression: 'SET #queue.#until = :until',
            ConditionExpression: '#status = :queued AND attribute_not_exists(closedAt)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: { ':until': until, ':queued': 'queued' },
          }),
        ),
      );
    },

    /**
     * Closes the window as read (no trigger came since): it is deleted and its run's record keeps the input. False when
     * a trigger came meanwhile or someone else closed it.
     */
    async close(window: GatherWindow, input: GatheredInput, closedAt: string): Promise<boolean> {
      try {
        await db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Delete: {
                  TableName: counters(),
                  Key: { counter: window.counter },
                  ConditionExpression: 'executionId = :id AND #count = :count',
                  ExpressionAttributeNames: { '#count': 'count' },
                  ExpressionAttributeValues: { ':id': window.executionId, ':count': window.count },
                },
              },
              {
                Update: {
                  TableName: executions(),
                  Key: { executionId: window.executionId },
                  UpdateExpression: `SET closedAt = :at, #queue.#until = :at, triggerJson = :trigger${input.inputJson === undefined ? '' : ', inputJson = :input'}${input.batchJson === undefined ? '' : ', batchJson = :batch'}`,
                  ConditionExpression: '#status = :queued AND attribute_not_exists(closedAt)',
                  ExpressionAttributeNames: names,
                  ExpressionAttributeValues: {
                    ':at': closedAt,
                    ':queued': 'queued',
                    ':trigger': input.triggerJson,
                    ...(input.inputJson !== undefined && { ':input': input.inputJson }),
                    ...(input.batchJson !== undefined && { ':batch': input.batchJson }),
                  },
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

    /** The closed run's record becomes its running record, once: false when it was started (or ended) already. */
    async start(running: Execution): Promise<boolean> {
      const { output, steps: _steps, ...item } = running;
      const written = await unlessConditionFails(
        db.send(
          new PutCommand({
            TableName: executions(),
            Item: { ...item, outputJson: JSON.stringify(output ?? null) },
            ConditionExpression: '#status = :queued AND attribute_exists(closedAt)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':queued': 'queued' },
          }),
        ),
      );
      return written !== undefined;
    },

    /** A closed run that admission refused (its day's runs, the budget): it ends failed without running. */
    async refuse(executionId: string, error: { code: string; message: string }, at: string): Promise<void> {
      await unlessConditionFails(
        db.send(
          new UpdateCommand({
            TableName: executions(),
            Key: { executionId },
            UpdateExpression: 'SET #status = :failed, #error = :error, finishedAt = :at',
            ConditionExpression: '#status = :queued',
            ExpressionAttributeNames: { '#status': 'status', '#error': 'error' },
            ExpressionAttributeValues: { ':failed': 'error', ':error': error, ':at': at, ':queued': 'queued' },
          }),
        ),
      );
    },
  };
}

export type GatherStore = ReturnType<typeof createGatherStore>;
