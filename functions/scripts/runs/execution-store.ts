// DynamoDB access for runs: execution records (90 days), their logs (30 days), the script's running totals,
// and the counters behind the daily limit and the monthly budget.
import { BatchGetCommand, BatchWriteCommand, DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, queryAll, tableName } from '#platform/dynamo.js';
import type { Execution, Installation, Script } from '../model.js';
import { createJournal, stepViews } from '../durable/journal.js';

const day = 24 * 60 * 60;
/** Execution logs 30 days, results 90 days. */
export const retention = { resultsSeconds: 90 * day, logsSeconds: 30 * day } as const;

/** A user's runs of one script (`scriptUser`), or all of a user's runs (`userId`, the run history). */
export type ExecutionQuery = ({ scriptUser: string } | { userId: string }) & { startDate?: string; endDate?: string };

export function createExecutionStore() {
  const db = dynamo();
  const executions = () => tableName('scriptExecutions');
  const logs = () => tableName('scriptExecutionLogs');
  const counters = () => tableName('scriptCounters');
  const journal = createJournal();
  /** A durable run's record carries its journal's steps. */
  const withSteps = async (execution: Execution): Promise<Execution> =>
    execution.durable ? { ...execution, steps: stepViews((await journal.read(execution.executionId)).entries) } : execution;

  return {
    async putRunning(execution: Execution): Promise<void> {
      await db.send(new PutCommand({ TableName: executions(), Item: execution }));
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

    /** The finished record and its logs (if it printed anything) in one request. */
    async putFinished(execution: Execution, lines: string[]): Promise<void> {
      const logsItem = {
        executionId: execution.executionId,
        logs: lines,
        expiresAt: Math.floor(Date.parse(execution.createdAt) / 1000) + retention.logsSeconds,
      };
      const items = { [executions()]: [{ PutRequest: { Item: execution } }], ...(lines.length && { [logs()]: [{ PutRequest: { Item: logsItem } }] }) };
      let unprocessed: typeof items | undefined = items;
      while (unprocessed && Object.keys(unprocessed).length)
        unprocessed = (await db.send(new BatchWriteCommand({ RequestItems: unprocessed }))).UnprocessedItems as typeof items | undefined;
    },

    /** Lines of a run still going, after those appended before; the finished run's logs replace them. */
    async appendLogs(executionId: string, lines: string[], expiresAt: number): Promise<void> {
      await db.send(
        new UpdateCommand({
          TableName: logs(),
          Key: { executionId },
          UpdateExpression: 'SET logs = list_append(if_not_exists(logs, :none), :lines), expiresAt = :expiresAt',
          ExpressionAttributeValues: { ':none': [], ':lines': lines, ':expiresAt': expiresAt },
        }),
      );
    },

    async get(executionId: string, consistent = false): Promise<Execution | undefined> {
      const { Item } = await db.send(new GetCommand({ TableName: executions(), Key: { executionId }, ConsistentRead: consistent }));
      return Item && withSteps(Item as Execution);
    },

    async getLogs(executionId: string): Promise<string[]> {
      const { Item } = await db.send(new GetCommand({ TableName: logs(), Key: { executionId } }));
      return (Item?.logs as string[] | undefined) ?? [];
    },

    /** Newest first, within the date range. */
    async list(query: ExecutionQuery): Promise<Execution[]> {
      const range =
        query.startDate && query.endDate
          ? { condition: ' AND createdAt BETWEEN :start AND :end', values: { ':start': query.startDate, ':end': query.endDate } }
          : query.startDate
            ? { condition: ' AND createdAt >= :start', values: { ':start': query.startDate } }
            : query.endDate
              ? { condition: ' AND createdAt <= :end', values: { ':end': query.endDate } }
              : { condition: '', values: {} };
      const [index, key, value] = 'userId' in query ? ['byUser', 'userId', query.userId] : ['byScriptUser', 'scriptUser', query.scriptUser];
      const found = await queryAll<Execution>({
        TableName: executions(),
        IndexName: index,
        KeyConditionExpression: `${key} = :key${range.condition}`,
        ExpressionAttributeValues: { ':key': value, ...range.values },
        ScanIndexForward: false,
      });
      return Promise.all(found.map(withSteps));
    },

    /** The script's running totals, which outlive the 90-day records they summarize. */
    async addToTotals(scriptId: string, run: { succeeded: boolean; duration: number; cost: number; at: string; version: number }): Promise<void> {
      await db
        .send(
          new UpdateCommand({
            TableName: tableName('scripts'),
            Key: { scriptId },
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
          }),
        )
        .catch((error: unknown) => {
          // The script was deleted while it ran: its totals went with it.
          if (!isConditionFailure(error)) throw error;
        });
    },

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

    async addSpend(counter: string, amountUsd: number, expiresAt: number): Promise<void> {
      if (amountUsd <= 0) return;
      await db.send(
        new UpdateCommand({
          TableName: counters(),
          Key: { counter },
          UpdateExpression: 'ADD amountUsd :amount SET expiresAt = :expiresAt',
          ExpressionAttributeValues: { ':amount': amountUsd, ':expiresAt': expiresAt },
        }),
      );
    },

    async remove(executionId: string): Promise<void> {
      await db.send(new DeleteCommand({ TableName: executions(), Key: { executionId } }));
    },
  };
}

export type ExecutionStore = ReturnType<typeof createExecutionStore>;
