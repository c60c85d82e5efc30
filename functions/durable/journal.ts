// The journal of durable runs in DynamoDB (table scriptSteps): one item per step or wait of a run, written once
// with a conditional put, and one `#run` item per run holding what a resumed invocation needs, the run's state and
// its tallies (entries, result bytes, open waits), written in the same transaction as the entry they count. Results
// past inlineResultBytes go to the blob store and the item keeps their key. A `#user#<userId>` item counts the waits
// all of a user's runs hold open.
import { BatchGetCommand, GetCommand, PutCommand, TransactWriteCommand, type TransactWriteCommandInput, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, queryAll, tableName } from '#platform/dynamo.js';
import { newId } from '#platform/ids.js';
import type { BlobStore } from '#platform/ports.js';
import type { ExecutionError, StepView } from './model.js';
import { type DurableLimits, inlineResultBytes } from './limits.js';

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
  /** JSON text, so any JSON shape round-trips as it was; absent when the result is in the blob store (`resultKey`). */
  result?: string;
  /** Where a result past inlineResultBytes is kept in the blob store. */
  resultKey?: string;
  /** The result's size as JSON text, inline or not. */
  resultBytes?: number;
  error?: ExecutionError;
  /** On a wait counted against its user's open waits: whose count to lower when it ends. */
  userId?: string;
  wakeAt?: string;
  /** Fields a wait kind keeps with its wait (a callback's id and token hash, an approval's id, an invoke's child run). */
  fields?: Record<string, unknown>;
  /**
   * Where the code called the operation: its context (`''` for the handler's own, `<name>/<index>/` for a branch of a
   * map or parallel) and its place among that context's operations; a resumed invocation is held to them.
   */
  context?: string;
  position?: number;
  /** Reused by a re-run from an earlier run (its times are that run's). */
  kept?: true;
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
  /** Entries written (steps and waits), bytes of their results and errors, waits open now. */
  stepCount?: number;
  journalBytes?: number;
  openWaits?: number;
  /** Set when the run went past one of its bounds: it fails with it, whatever its code did with the refusal. */
  failure?: ExecutionError;
  /**
   * Waits of the run ended so far, and how many had when the invocation holding the run took it: one that ended since
   * (a branch's, while others ran) continues the run once the invocation suspends.
   */
  settledWaits?: number;
  settledWhenTaken?: number;
}

/** Which bound refused a write: the run's entries or bytes, the run's open waits, or the user's. */
export type Refusal = 'steps' | 'bytes' | 'runWaits' | 'userWaits';

const runItemName = '#run';
/** The item counting a user's open waits: no execution id starts with `#`. */
const userWaitsKey = (userId: string) => ({ executionId: `#user#${userId}`, name: '#open-waits' });

/** The size an entry adds to its run's journal bytes. */
const sizeOf = (text: string | undefined, error?: ExecutionError) => (text ? Buffer.byteLength(text) : 0) + (error ? Buffer.byteLength(error.message) : 0);

/** Which items of a cancelled transaction failed their condition, by position. */
function failedConditions(error: unknown): boolean[] | undefined {
  if (!(error instanceof Error && error.name === 'TransactionCanceledException')) return undefined;
  const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons ?? [];
  return reasons.map((reason) => reason.Code === 'ConditionalCheckFailed');
}
type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

export function createJournal(results: () => BlobStore) {
  const db = dynamo();
  const table = () => tableName('scriptSteps');
  const transact = (items: TransactItem[]) => db.send(new TransactWriteCommand({ TransactItems: items }));

  /** The result as stored: inline when small, else in the blob store under a key of its own (the first write stands). */
  async function stored(text: string | undefined, executionId: string): Promise<Pick<JournalEntry, 'result' | 'resultKey' | 'resultBytes'>> {
    if (text === undefined) return {};
    const resultBytes = Buffer.byteLength(text);
    if (resultBytes <= inlineResultBytes) return { result: text, resultBytes };
    const resultKey = `journal/${executionId}/${newId('res')}.json`;
    await results().put(resultKey, Buffer.from(text), 'application/json');
    return { resultKey, resultBytes };
  }
  const discard = async (entry: Pick<JournalEntry, 'resultKey'>) => {
    if (entry.resultKey) await results().delete(entry.resultKey);
  };

  /** A run's tally update: entries and bytes added, within the run's bounds. */
  const tallied = (
    executionId: string,
    add: { steps: number; bytes: number; waits?: number; settled?: number },
    limits?: DurableLimits,
    expiresAt?: number,
  ): TransactItem => {
    const bounded = limits !== undefined;
    return {
      Update: {
        TableName: table(),
        Key: { executionId, name: runItemName },
        UpdateExpression: `ADD stepCount :steps, journalBytes :bytes${add.waits !== undefined ? ', openWaits :waits' : ''}${add.settled ? ', settledWaits :settled' : ''}${expiresAt ? ' SET expiresAt = :expiresAt' : ''}`,
        ConditionExpression: [
          'attribute_exists(executionId)',
          ...(bounded
            ? [
                '(attribute_not_exists(stepCount) OR stepCount < :maxSteps)',
                '(attribute_not_exists(journalBytes) OR journalBytes <= :room)',
                ...(add.waits ? ['(attribute_not_exists(openWaits) OR openWaits < :maxWaits)'] : []),
              ]
            : []),
        ].join(' AND '),
        ExpressionAttributeValues: {
          ':steps': add.steps,
          ':bytes': add.bytes,
          ...(add.waits !== undefined && { ':waits': add.waits }),
          ...(add.settled && { ':settled': add.settled }),
          ...(expiresAt && { ':expiresAt': expiresAt }),
          ...(bounded && { ':maxSteps': limits.maxSteps, ':room': limits.maxJournalBytes - add.bytes }),
          ...(bounded && add.waits && { ':maxWaits': limits.maxOpenWaitsPerRun }),
        },
      },
    };
  };
  const userWaits = (userId: string, add: number, limits?: DurableLimits): TransactItem => ({
    Update: {
      TableName: table(),
      Key: userWaitsKey(userId),
      UpdateExpression: 'ADD openWaits :add',
      ...(limits && { ConditionExpression: 'attribute_not_exists(openWaits) OR openWaits < :max' }),
      ExpressionAttributeValues: { ':add': add, ...(limits && { ':max': limits.maxOpenWaitsPerUser }) },
    },
  });

  /** Which bound a refused tally update met (the run item tells, read after the refusal). */
  async function refusalOf(executionId: string, limits: DurableLimits, bytes: number): Promise<Refusal> {
    const run = await journal.getRun(executionId);
    if ((run?.stepCount ?? 0) >= limits.maxSteps) return 'steps';
    if ((run?.journalBytes ?? 0) + bytes > limits.maxJournalBytes) return 'bytes';
    return 'runWaits';
  }

  const journal = {
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

    /**
     * The run's entries in order without their inline results: at most a few hundred bytes each, whatever the steps
     * returned (read `withResults` for the few a caller shows or hands on).
     */
    async outline(executionId: string): Promise<JournalEntry[]> {
      const items = await queryAll<JournalEntry>({
        TableName: table(),
        KeyConditionExpression: 'executionId = :id',
        ProjectionExpression:
          '#name, seq, #type, #status, startedAt, endedAt, resultKey, resultBytes, #error, wakeAt, #fields, userId, #context, #position, #kept',
        ExpressionAttributeNames: {
          '#name': 'name',
          '#type': 'type',
          '#status': 'status',
          '#error': 'error',
          '#fields': 'fields',
          '#context': 'context',
          '#position': 'position',
          '#kept': 'kept',
        },
        ExpressionAttributeValues: { ':id': executionId },
        ConsistentRead: true,
      });
      return items
        .filter((item) => item.name !== runItemName)
        .map((item) => ({ ...item, executionId }))
        .sort((a, b) => a.seq - b.seq);
    },

    /** The entries with their results as JSON text: inline ones in batch reads of 100, the others from the blob store. */
    async withResults(executionId: string, entries: JournalEntry[]): Promise<JournalEntry[]> {
      const inline = entries.filter((entry) => entry.status === 'succeeded' && !entry.resultKey && entry.result === undefined);
      const texts = new Map<string, string>();
      for (let start = 0; start < inline.length; start += 100) {
        let keys: Record<string, unknown>[] | undefined = inline.slice(start, start + 100).map((entry) => ({ executionId, name: entry.name }));
        while (keys?.length) {
          const answer = await db.send(
            new BatchGetCommand({
              RequestItems: {
                [table()]: {
                  Keys: keys,
                  ProjectionExpression: '#name, #result',
                  ExpressionAttributeNames: { '#name': 'name', '#result': 'result' },
                  ConsistentRead: true,
                },
              },
            }),
          );
          for (const item of (answer.Responses?.[table()] ?? []) as Pick<JournalEntry, 'name' | 'result'>[])
            if (item.result !== undefined) texts.set(item.name, item.result);
          keys = answer.UnprocessedKeys?.[table()]?.Keys as Record<string, unknown>[] | undefined;
        }
      }
      return Promise.all(
        entries.map(async (entry) => {
          const result = entry.resultKey ? await journal.resultOf(entry) : (entry.result ?? texts.get(entry.name));
          return result === undefined ? entry : { ...entry, result };
        }),
      );
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
            UpdateExpression: `SET #state = :to${options.nextInvocation ? ', settledWhenTaken = if_not_exists(settledWaits, :zero) ADD invocation :one' : ''}`,
            ConditionExpression: `#state IN (${Object.keys(states).join(', ')})${options.invocation !== undefined ? ' AND invocation = :invocation' : ''}`,
            ExpressionAttributeNames: { '#state': 'state' },
            ExpressionAttributeValues: {
              ':to': to,
              ...states,
              ...(options.nextInvocation && { ':one': 1, ':zero': 0 }),
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

    /**
     * Writes a step's entry unless its name is taken in the run (then the entry that stands comes back), counted in
     * the run's tallies within `limits`; a refusal names the bound.
     */
    async putStep(
      entry: Omit<JournalEntry, 'result' | 'resultKey' | 'resultBytes'>,
      text: string | undefined,
      limits: DurableLimits,
    ): Promise<{ written: boolean; entry: JournalEntry } | { refused: Refusal }> {
      const bytes = sizeOf(text, entry.error);
      const item: JournalEntry = { ...entry, ...(await stored(text, entry.executionId)) };
      try {
        await transact([
          { Put: { TableName: table(), Item: item, ConditionExpression: 'attribute_not_exists(#name)', ExpressionAttributeNames: { '#name': 'name' } } },
          tallied(entry.executionId, { steps: 1, bytes }, limits),
        ]);
        return { written: true, entry: item };
      } catch (error) {
        const failed = failedConditions(error);
        if (!failed) throw error;
        await discard(item);
        if (failed[0]) return { written: false, entry: (await journal.entry(entry.executionId, entry.name))! };
        return { refused: await refusalOf(entry.executionId, limits, bytes) };
      }
    },

    /**
     * Takes a place for a wait about to open: an entry of the run, an open wait of the run and one of its user's,
     * within `limits`; the run item then lives at least until `expiresAt` (a wait may outlast the journal's retention).
     */
    async reserveWait(executionId: string, userId: string, limits: DurableLimits, expiresAt: number): Promise<Refusal | undefined> {
      try {
        await transact([tallied(executionId, { steps: 1, bytes: 0, waits: 1 }, limits, expiresAt), userWaits(userId, 1, limits)]);
        return undefined;
      } catch (error) {
        const failed = failedConditions(error);
        if (!failed) throw error;
        return failed[0] ? refusalOf(executionId, limits, 0) : 'userWaits';
      }
    },

    /** Gives back a place taken by reserveWait for a wait that did not open. */
    async releaseWait(executionId: string, userId: string): Promise<void> {
      await transact([tallied(executionId, { steps: -1, bytes: 0, waits: -1 }), userWaits(userId, -1)]);
    },

    /** Records on the run the bound it went past, once. */
    async recordFailure(executionId: string, failure: ExecutionError): Promise<void> {
      await db
        .send(
          new UpdateCommand({
            TableName: table(),
            Key: { executionId, name: runItemName },
            UpdateExpression: 'SET failure = if_not_exists(failure, :failure)',
            ConditionExpression: 'attribute_exists(executionId)',
            ExpressionAttributeValues: { ':failure': failure },
          }),
        )
        .catch((error: unknown) => {
          if (!isConditionFailure(error)) throw error;
        });
    },

    /** Ends a wait that is still waiting, its result stored as a step's is; undefined when it is not (ended before, cancelled, or no such wait). */
    async settleWait(
      executionId: string,
      name: string,
      settled: { status: Exclude<StepStatus, 'waiting'>; endedAt: string; text?: string; error?: ExecutionError },
    ): Promise<JournalEntry | undefined> {
      const waiting = await journal.entry(executionId, name);
      if (waiting?.status !== 'waiting') return undefined;
      const result = await stored(settled.text, executionId);
      const fields = { status: settled.status, endedAt: settled.endedAt, ...result, ...(settled.error && { error: settled.error }) };
      const names = Object.keys(fields);
      const update: TransactItem = {
        Update: {
          TableName: table(),
          Key: { executionId, name },
          UpdateExpression: `SET ${names.map((field) => `#${field} = :${field}`).join(', ')}`,
          ConditionExpression: '#status = :waiting',
          ExpressionAttributeNames: Object.fromEntries(names.map((field) => [`#${field}`, field])),
          ExpressionAttributeValues: { ...Object.fromEntries(Object.entries(fields).map(([field, value]) => [`:${field}`, value])), ':waiting': 'waiting' },
        },
      };
      // A wait opened before the tallies were kept has no user: it was never counted.
      const counted = waiting.userId
        ? [tallied(executionId, { steps: 0, bytes: sizeOf(settled.text, settled.error), waits: -1, settled: 1 }), userWaits(waiting.userId, -1)]
        : [];
      try {
        await transact([update, ...counted]);
      } catch (error) {
        if (!failedConditions(error)) throw error;
        await discard(result);
        return undefined;
      }
      return { ...waiting, ...fields };
    },

    /** One entry, consistent; undefined when the run has none of that name. */
    async entry(executionId: string, name: string): Promise<JournalEntry | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { executionId, name }, ConsistentRead: true }));
      return Item as JournalEntry | undefined;
    },

    /** The run's waits still waiting, without their results: to close them when the run ends. */
    waiting: (executionId: string) =>
      queryAll<Pick<JournalEntry, 'executionId' | 'name' | 'type' | 'fields' | 'userId'>>({
        TableName: table(),
        KeyConditionExpression: 'executionId = :id',
        FilterExpression: '#status = :waiting',
        ProjectionExpression: 'executionId, #name, #type, #fields, userId',
        ExpressionAttributeNames: { '#status': 'status', '#name': 'name', '#type': 'type', '#fields': 'fields' },
        ExpressionAttributeValues: { ':id': executionId, ':waiting': 'waiting' },
        ConsistentRead: true,
      }),

    /** The result's JSON text, wherever it is kept; undefined for an entry without one. */
    async resultOf(entry: Pick<JournalEntry, 'result' | 'resultKey'>): Promise<string | undefined> {
      if (!entry.resultKey) return entry.result;
      const bytes = await results().get(entry.resultKey);
      return bytes && Buffer.from(bytes).toString('utf8');
    },

    /**
     * The run's entries in order after `after` (a `seq`), at most `limit`, with their results while they fit in
     * `budgetBytes` (at least one entry); `next` is where the next page starts, when there is one.
     */
    async page(executionId: string, options: { after?: number; limit: number; budgetBytes: number }): Promise<{ entries: JournalEntry[]; next?: number }> {
      const entries = await journal.outline(executionId);
      const rest = options.after === undefined ? entries : entries.filter((entry) => entry.seq > options.after!);
      const page: JournalEntry[] = [];
      let bytes = 0;
      for (const entry of rest.slice(0, options.limit)) {
        // An entry written before sizes were kept counts as the most a result may be inline.
        bytes += (entry.resultBytes ?? (entry.resultKey ? 0 : inlineResultBytes)) + sizeOf(undefined, entry.error) + 200;
        if (page.length > 0 && bytes > options.budgetBytes) break;
        page.push(entry);
      }
      return { entries: await journal.withResults(executionId, page), ...(page.length < rest.length && { next: page.at(-1)!.seq }) };
    },
  };
  return journal;
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
    ...(typeof entry.fields?.childExecutionId === 'string' && { childExecutionId: entry.fields.childExecutionId }),
    ...(typeof entry.fields?.callbackId === 'string' && { callbackId: entry.fields.callbackId }),
    ...(typeof entry.fields?.approvalId === 'string' && { approvalId: entry.fields.approvalId }),
    ...(typeof entry.fields?.eventType === 'string' && { eventType: entry.fields.eventType }),
    ...(entry.kept && { kept: true as const }),
  }));
