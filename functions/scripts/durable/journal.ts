// The journal of durable runs in DynamoDB (table scriptSteps): one item per step or wait of a run, written once
// with a conditional put, and one `#run` item per run holding what a resumed invocation needs and the run's state.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, queryAll, tableName } from '#platform/dynamo.js';
import type { ExecutionError, StepView } from '../model.js';

export type StepType = StepView['type'];
export type StepStatus = StepView['status'];

export interface JournalEntry {
  executionId: string;
  name: string;
  /** Order of the entries within the run. */
  seq: number;
  type: StepType;
  status: StepStatus;
  startedAt: string;
  endedAt: string | null;
  /** JSON text, so any JSON shape round-trips as it was. */
  result?: string;
  error?: ExecutionError;
  wakeAt?: string;
  /** Fields a wait kind keeps with its wait (a callback's id and token hash, an approval's id). */
  fields?: Record<string, unknown>;
  expiresAt: number;
}

/** `queued` (admitted, its first invocation not taken yet), `running` (an invocation has it), `waiting`, or ended. */
export type RunState = 'queued' | 'running' | 'waiting' | 'cancelled' | 'finished';

export interface RunItem {
  executionId: string;
  name: typeof runItemName;
  state: RunState;
  /** Counts the run's invocations; the one holding the run is the last. */
  invocation: number;
  userId: string;
  scriptId: string;
  flowId?: string;
  /** Which registered resumer continues the run: `script` for script runs, or an in-process runner's name. */
  runner: string;
  /** The resumer's input as JSON text (for script runs, the admitted run). */
  payload: string;
  expiresAt: number;
}

const runItemName = '#run';

export function createJournal() {
  const db = dynamo();
  const table = () => tableName('scriptSteps');

  return {
    async read(executionId: string): Promise<{ run?: RunItem; entries: JournalEntry[] }> {
      const items = await queryAll<JournalEntry | RunItem>({
        TableName: table(),
        KeyConditionExpression: 'executionId = :id',
        ExpressionAttributeValues: { ':id': executionId },
        ConsistentRead: true,
      });
      const run = items.find((item): item is RunItem => item.name === runItemName);
      const entries = items.filter((item): item is JournalEntry => item.name !== runItemName).sort((a, b) => a.seq - b.seq);
      return { run, entries };
    },

    async getRun(executionId: string): Promise<RunItem | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { executionId, name: runItemName }, ConsistentRead: true }));
      return Item as RunItem | undefined;
    },

    async putRun(run: Omit<RunItem, 'name'>): Promise<void> {
      await db.send(new PutCommand({ TableName: table(), Item: { ...run, name: runItemName } }));
    },

    /** Moves the run from one of `from` to `to`; with `invocation`, only while that invocation holds it. Undefined when it was not there. */
    async moveRun(
      executionId: string,
      from: RunState[],
      to: RunState,
      options: { invocation?: number; nextInvocation?: boolean } = {},
    ): Promise<RunItem | undefined> {
      const states = Object.fromEntries(from.map((state, index) => [`:from${index}`, state]));
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: table(),
            Key: { executionId, name: runItemName },
            UpdateExpression: `SET #state = :to${options.nextInvocation ? ' ADD invocation :one' : ''}`,
            ConditionExpression: `#state IN (${Object.keys(states).join(', ')})${options.invocation !== undefined ? ' AND invocation = :invocation' : ''}`,
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: {
              ':to': to,
              ...states,
              ...(options.nextInvocation && { ':one': 1 }),
              ...(options.invocation !== undefined && { ':invocation': options.invocation }),
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes as RunItem;
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },

    /** Writes the entry unless its name is taken in the run; returns the entry that stands. */
    async putEntry(entry: JournalEntry): Promise<{ written: boolean; entry: JournalEntry }> {
      try {
        await db.send(
          new PutCommand({
            TableName: table(),
            Item: entry,
            ConditionExpression: 'attribute_not_exists(#name)',
            ExpressionAttributeNames: { '#name': 'name' },
          }),
        );
        return { written: true, entry };
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { executionId: entry.executionId, name: entry.name }, ConsistentRead: true }));
        return { written: false, entry: Item as JournalEntry };
      }
    },

    /** Ends a wait that is still waiting; undefined when it is not (ended before, cancelled, or no such wait). */
    async settleWait(
      executionId: string,
      name: string,
      settled: { status: Exclude<StepStatus, 'waiting'>; endedAt: string; result?: string; error?: ExecutionError },
    ): Promise<JournalEntry | undefined> {
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: table(),
            Key: { executionId, name },
            UpdateExpression: `SET #status = :status, endedAt = :endedAt${settled.result !== undefined ? ', #result = :result' : ''}${settled.error ? ', #error = :error' : ''}`,
            ConditionExpression: '#status = :waiting',
            ExpressionAttributeNames: {
              '#status': 'status',
              ...(settled.result !== undefined && { '#result': 'result' }),
              ...(settled.error && { '#error': 'error' }),
            },
            ExpressionAttributeValues: {
              ':status': settled.status,
              ':endedAt': settled.endedAt,
              ':waiting': 'waiting',
              ...(settled.result !== undefined && { ':result': settled.result }),
              ...(settled.error && { ':error': settled.error }),
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes as JournalEntry;
      } catch (error) {
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },
  };
}

export type Journal = ReturnType<typeof createJournal>;

/** The journal's entries as execution records show them. */
export const stepViews = (entries: JournalEntry[]): StepView[] =>
  entries.map((entry) => ({
    name: entry.name,
    type: entry.type,
    status: entry.status,
    startedAt: entry.startedAt,
    endedAt: entry.endedAt,
    ...(entry.result !== undefined && { result: JSON.parse(entry.result) as unknown }),
    ...(entry.error && { error: entry.error }),
    ...(entry.wakeAt && { wakeAt: entry.wakeAt }),
  }));
