// DynamoDB access for runs: execution records and their logs (kept as every run record is: platform/run-records.ts),
// the script's running totals, and the counters behind the daily limit and the monthly budget.
import {
  BatchGetCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  TransactGetCommand,
  TransactWriteCommand,
  type TransactWriteCommandInput,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, tableName, unlessConditionFails } from '#platform/dynamo.js';
import { type TimeRange, countRuns, listRuns, runExpiry } from '#platform/run-records.js';
import { type Execution, type Installation, type LogLine, type RunSummary, type Script, runSummaryFields } from '../model.js';
import type { BlobStore } from '#platform/ports.js';
import { createJournal, stepViews } from '../../durable/api.js';

/** A user's runs of one script (`scriptUser`), or all of a user's runs (`userId`, the run history). */
export type ExecutionQuery = ({ scriptUser: string } | { userId: string }) & TimeRange;

/** What a finished invocation adds to the script's running totals and to its user's month of spend. */
export interface RunCounts {
  totals?: { scriptId: string; succeeded: boolean; duration: number; cost: number; at: string; version: number };
  spend?: { counter: string; amountUsd: number; expiresAt: number };
}

type TransactItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

/** Tries of a run's finishing transaction that others cancel (about 5 s of backoff in all) before writing it in parts. */
const transactionAttempts = 8;

/**
 * The item of a run: its output as JSON text (`outputJson`), since the document marshaller refuses or changes objects
 * whose keys are Object.prototype's (`{constructor: "x"}` fails the write, a `__proto__` key is dropped). A truncated
 * output is a prefix of that text and stays in `output`; steps live in the journal.
 */
function itemOf(execution: Execution): Record<string, unknown> {
  const { output, steps: _steps, ...kept } = execution;
  return execution.outputTruncated ? { ...kept, output } : { ...kept, outputJson: JSON.stringify(output ?? null) };
}

/** A stored run as the platform sees it; records written before `outputJson` keep their output in `output`. */
export function executionOf(item: Record<string, unknown>): Execution {
  const { outputJson, ...kept } = item;
  return (typeof outputJson === 'string' ? { ...kept, output: JSON.parse(outputJson) } : kept) as Execution;
}

/** Which of a durable run's steps a record carries: after `after` (a step's position), at most `limit`, within `budgetBytes` of results. */
export interface StepsPage {
  after?: number;
  limit: number;
  budgetBytes: number;
}
/** One run's record (getExecution): the first 100 steps, within 4 MB (a Lambda answers at most 6 MB). */
export const runStepsPage: StepsPage = { limit: 100, budgetBytes: 4 * 1024 * 1024 };
/** Each run of a list (up to 100 of them): its first 10 steps, within 32 KB. */
export const listStepsPage: StepsPage = { limit: 10, budgetBytes: 32 * 1024 };

/** The page a getExecution asks for: `stepsLimit` steps after `stepsCursor`. */
export const stepsPage = (input: { stepsLimit: number; stepsCursor?: string }): StepsPage => ({
  ...runStepsPage,
  limit: input.stepsLimit,
  ...(input.stepsCursor !== undefined && { after: Number(input.stepsCursor) }),
});

/**
 * A run's log items (keys of the logs table): the stored lines of its ended invocations under the run's id, and the
 * lines of the invocation still running under `<executionId>#live`, replaced by its stored lines when it ends.
 */
const liveLogKey = (executionId: string) => `${executionId}#live`;

/** Consecutive lines of one invocation printed in one step (or outside steps): the log item keeps `logs` as plain text. */
interface LogSegment {
  lines: number;
  invocation: number;
  step?: string;
}

function segmentsOf(lines: LogLine[]): LogSegment[] {
  const segments: LogSegment[] = [];
  for (const { invocation, step } of lines) {
    const last = segments.at(-1);
    if (last && last.invocation === invocation && last.step === step) last.lines += 1;
    else segments.push({ lines: 1, invocation, ...(step !== undefined && { step }) });
  }
  return segments;
}

/** A log item's lines; those before its segments (items written before segments were kept) are the first invocation's. */
function linesOf(item: Record<string, unknown> | undefined): LogLine[] {
  const texts = (item?.logs as string[] | undefined) ?? [];
  const segments = (item?.logSegments as LogSegment[] | undefined) ?? [];
  let at = Math.max(0, texts.length - segments.reduce((sum, segment) => sum + segment.lines, 0));
  const lines: LogLine[] = texts.slice(0, at).map((text) => ({ text, invocation: 1 }));
  for (const { lines: count, invocation, step } of segments) {
    for (const text of texts.slice(at, at + count)) lines.push({ text, invocation, ...(step !== undefined && { step }) });
    at += count;
  }
  return lines;
}

/** Adds lines to a log item, in order. */
const appendedLines = (TableName: string, executionId: string, lines: LogLine[], expiresAt: number) => ({
  TableName,
  Key: { executionId },
  UpdateExpression:
    'SET logs = list_append(if_not_exists(logs, :none), :lines), logSegments = list_append(if_not_exists(logSegments, :none), :segments), expiresAt = :expiresAt',
  ExpressionAttributeValues: { ':none': [], ':lines': lines.map((line) => line.text), ':segments': segmentsOf(lines), ':expiresAt': expiresAt },
});

export function createExecutionStore(results: () => BlobStore) {
  const db = dynamo();
  const executions = () => tableName('scriptExecutions');
  const logs = () => tableName('scriptExecutionLogs');
  const counters = () => tableName('scriptCounters');
  const journal = createJournal(results);
  const spendUpdate = ({ counter, amountUsd, expiresAt }: NonNullable<RunCounts['spend']>) => ({
    TableName: counters(),
    Key: { counter },
    UpdateExpression: 'ADD amountUsd :amount SET expiresAt = :expiresAt',
    ExpressionAttributeValues: { ':amount': amountUsd, ':expiresAt': expiresAt },
  });
  const totalsUpdate = (run: NonNullable<RunCounts['totals']>) => ({
    TableName: tableName('scripts'),
    Key: { scriptId: run.scriptId },
    UpdateExpression: `ADD totalExecutions :one, successCount :success, totalDuration :duration, totalCost :cost${run.succeeded ? ', testedVersions :version' : ''} SET lastExecutedAt = :at`,
    ConditionExpression: 'attribute_exists(scriptId)',
    ExpressionAttributeValues: {
      ':one': 1,
      ':success': run.succeeded ? 1 : 0,
      ':duration': run.duration,
      ':cost': run.cost,
      ':at': run.at,
      ...(run.succeeded && { ':version': new Set([run.version]) }),
    },
  });
  /**
   * Puts the record and its logs with what the run counts, all or nothing. Runs ending at once contend for their
   * script's totals and their user's spend item, which cancels all but one transaction: those try again, and past
   * transactionAttempts write the record first and its counts after it, so no run is ever counted without its record.
   */
  async function putCounted(writes: TransactItem[], counts: RunCounts, attempt = 1): Promise<void> {
    const spend = counts.spend && counts.spend.amountUsd > 0 ? spendUpdate(counts.spend) : undefined;
    const totals = counts.totals && totalsUpdate(counts.totals);
    const counted: TransactItem[] = [...(spend ? [{ Update: spend }] : []), ...(totals ? [{ Update: totals }] : [])];
    try {
      await db.send(new TransactWriteCommand({ TransactItems: [...writes, ...counted] }));
      return;
    } catch (error) {
      const reasons = (error as { CancellationReasons?: { Code?: string }[] }).CancellationReasons;
      // The script was deleted while it ran: its totals went with it, the rest is written without them.
      if (totals && reasons?.at(-1)?.Code === 'ConditionalCheckFailed') return putCounted(writes, { ...counts, totals: undefined }, attempt);
      if (!reasons?.some((reason) => reason.Code === 'TransactionConflict')) throw error;
    }
    if (attempt < transactionAttempts) {
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * 2 ** attempt));
      return putCounted(writes, counts, attempt + 1);
    }
    for (const write of writes)
      if (write.Put) await db.send(new PutCommand(write.Put));
      else if (write.Update) await db.send(new UpdateCommand(write.Update as ConstructorParameters<typeof UpdateCommand>[0]));
      else if (write.Delete) await db.send(new DeleteCommand(write.Delete));
    await Promise.all([spend && db.send(new UpdateCommand(spend)), totals && unlessConditionFails(db.send(new UpdateCommand(totals)))]);
  }
  /** A durable run's record carries a page of its journal's steps, and where the next page starts when there is one. */
  async function withSteps(execution: Execution, page: StepsPage): Promise<Execution> {
    if (!execution.durable) return execution;
    const { entries, next } = await journal.page(execution.executionId, page);
    return { ...execution, steps: stepViews(entries), ...(next !== undefined && { stepsNextCursor: String(next) }) };
  }
  const byIndex = (query: ExecutionQuery) =>
    'userId' in query
      ? ([{ table: executions(), index: 'byUser', partitionKey: 'userId', startedAt: 'createdAt' }, query.userId] as const)
      : ([{ table: executions(), index: 'byScriptUser', partitionKey: 'scriptUser', startedAt: 'createdAt' }, query.scriptUser] as const);

  return {
    async putRunning(execution: Execution): Promise<void> {
      await db.send(new PutCommand({ TableName: executions(), Item: itemOf(execution) }));
    },

    /** A background run takes its running record once: a repeated delivery of its job finds it taken and runs nothing. */
    async claim(executionId: string, at: string): Promise<boolean> {
      try {
        await db.send(
          new UpdateCommand({
            TableName: executions(),
            Key: { executionId },
            UpdateExpression: 'SET claimedAt = :at',
            ConditionExpression: '#status = :running AND attribute_not_exists(claimedAt)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':at': at, ':running': 'running' },
          }),
        );
        return true;
      } catch (error) {
        if (isConditionFailure(error)) return false;
        throw error;
      }
    },

    /**
     * The record of an ended invocation, with the lines it printed added to the run's log in place of its live ones;
     * with `counts`, in one transaction with the run's totals and spend: a run is counted exactly when it is recorded,
     * so whoever sees it finished sees it counted, and no run is paid for without its record. Without `printed` (the
     * invocation failed to run), its live lines stay.
     */
    async putFinished(execution: Execution, printed?: LogLine[], counts: RunCounts = {}): Promise<void> {
      const { executionId } = execution;
      const expiresAt = runExpiry(execution.createdAt).logsExpireAt;
      const writes: TransactItem[] = [
        { Put: { TableName: executions(), Item: itemOf(execution) } },
        ...(printed?.length ? [{ Update: appendedLines(logs(), executionId, printed, expiresAt) }] : []),
        ...(printed ? [{ Delete: { TableName: logs(), Key: { executionId: liveLogKey(executionId) } } }] : []),
      ];
      await putCounted(writes, counts);
    },

    /** Lines of an invocation still running, after those appended before. */
    async appendLogs(executionId: string, lines: LogLine[], expiresAt: number): Promise<void> {
      await db.send(new UpdateCommand(appendedLines(logs(), liveLogKey(executionId), lines, expiresAt)));
    },

    /** The record, with the page of steps asked for (none with `false`). */
    async get(executionId: string, consistent = false, steps: StepsPage | false = runStepsPage): Promise<Execution | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: executions(), Key: { executionId }, ConsistentRead: consistent }));
      return Item && (steps ? withSteps(executionOf(Item), steps) : executionOf(Item));
    },

    /** Every invocation's lines in order, the running one's last (one consistent read of both items). */
    async getLogs(executionId: string): Promise<LogLine[]> {
      const { Responses } = await db.send(
        new TransactGetCommand({
          TransactItems: [executionId, liveLogKey(executionId)].map((key) => ({ Get: { TableName: logs(), Key: { executionId: key } } })),
        }),
      );
      return [...linesOf(Responses?.[0]?.Item), ...linesOf(Responses?.[1]?.Item)];
    },

    /**
     * Newest first, within the date range (with `first`, that many), as stored: a durable run's steps are left to
     * `withSteps`, for the page shown.
     */
    async list(query: ExecutionQuery, first?: number): Promise<Execution[]> {
      const [index, partition] = byIndex(query);
      return (await listRuns<Record<string, unknown>>(index, partition, query, { first })).map(executionOf);
    },

    /** What a list of runs across scripts shows of each, newest first, within the date range; with `first`, that many. */
    async listSummaries(query: ExecutionQuery, first?: number): Promise<RunSummary[]> {
      const [index, partition] = byIndex(query);
      return listRuns<RunSummary>(index, partition, query, { attributes: runSummaryFields, first });
    },

    /** How many runs `list` would answer, none of them read. */
    async count(query: ExecutionQuery): Promise<number> {
      const [index, partition] = byIndex(query);
      return countRuns(index, partition, query);
    },

    /** The runs with the first steps of their durable runs, read from the journal: for the few runs a page shows. */
    withSteps: (runs: Execution[]): Promise<Execution[]> => Promise.all(runs.map((run) => withSteps(run, listStepsPage))),

    /** What a run needs to know, in one request: the script, the runner's installation and the month's spend so far. */
    async readForRun(scriptId: string, userId: string, spendCounter: string): Promise<{ script?: Script; installation?: Installation; spent: number }> {
      let request: Record<string, { Keys: Record<string, unknown>[]; ConsistentRead?: boolean }> | undefined = {
        [tableName('scripts')]: { Keys: [{ scriptId }], ConsistentRead: true },
        [tableName('scriptInstallations')]: { Keys: [{ scriptId, userId }] },
        [counters()]: { Keys: [{ counter: spendCounter }] },
      };
      const found: Record<string, Record<string, unknown>[]> = {};
      while (request && Object.keys(request).length) {
        const page = await db.send(new BatchGetCommand({ RequestItems: request }));
        for (const [table, items] of Object.entries(page.Responses ?? {})) (found[table] ??= []).push(...items);
        request = page.UnprocessedKeys as typeof request;
      }
      return {
        script: found[tableName('scripts')]?.[0] as unknown as Script | undefined,
        installation: found[tableName('scriptInstallations')]?.[0] as unknown as Installation | undefined,
        spent: Number(found[counters()]?.[0]?.amountUsd ?? 0),
      };
    },

    /** Counts one run for the day and returns the day's count with it; a run over the limit is released again. */
    async countDailyRun(counter: string, expiresAt: number): Promise<number> {
      const { Attributes } = await db.send(
        new UpdateCommand({
          TableName: counters(),
          Key: { counter },
          UpdateExpression: 'ADD #count :one SET expiresAt = :expiresAt',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':one': 1, ':expiresAt': expiresAt },
          ReturnValues: 'UPDATED_NEW',
        }),
      );
      return Number(Attributes?.count ?? 1);
    },

    async releaseDailyRun(counter: string): Promise<void> {
      await db.send(
        new UpdateCommand({
          TableName: counters(),
          Key: { counter },
          UpdateExpression: 'ADD #count :minus',
          ExpressionAttributeNames: { '#count': 'count' },
          ExpressionAttributeValues: { ':minus': -1 },
        }),
      );
    },

    async readDailyRuns(counter: string): Promise<number> {
      const { Item } = await db.send(new GetCommand({ TableName: counters(), Key: { counter } }));
      return Number(Item?.count ?? 0);
    },

    /** Spend of an invocation whose record another write holds (a run cancelled while it ran). */
    async addSpend(spend: NonNullable<RunCounts['spend']>): Promise<void> {
      if (spend.amountUsd > 0) await db.send(new UpdateCommand(spendUpdate(spend)));
    },

    async remove(executionId: string): Promise<void> {
      await db.send(new DeleteCommand({ TableName: executions(), Key: { executionId } }));
    },
  };
}

export type ExecutionStore = ReturnType<typeof createExecutionStore>;
