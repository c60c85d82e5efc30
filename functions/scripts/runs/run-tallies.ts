// A run's resource calls counted across processes (scripts deployed as Lambda functions): item `run#<executionId>`
// in scriptCounters, written by the resource-call function and closed by the runner's side once the invocation returns.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, isConditionFailure, tableName } from '#platform/dynamo.js';
import { ForbiddenError } from '#platform/errors.js';
import type { RunTally } from './resource-gate.js';
import type { RunUsage } from './runtime-port.js';

export const runTallyCounter = (executionId: string) => `run#${executionId}`;

/** Long enough for any run and a look at it afterwards; the runner copies what it needs onto the execution. */
const keptSeconds = 24 * 60 * 60;

const usageOf = (item: Record<string, unknown> | undefined): RunUsage => ({
  calls: Number(item?.calls ?? 0),
  cost: Number(item?.cost ?? 0),
  stoppedForCost: item?.stoppedForCost === true,
});

export function createRunTallies() {
  const db = dynamo();
  const table = () => tableName('scriptCounters');
  const expiresAt = () => Math.floor(Date.now() / 1000) + keptSeconds;

  const update = (executionId: string, expression: string, values: Record<string, unknown>, extra: { condition?: string; returnAll?: boolean } = {}) =>
    db.send(
      new UpdateCommand({
        TableName: table(),
        Key: { counter: runTallyCounter(executionId) },
        UpdateExpression: expression,
        ExpressionAttributeValues: { ...values, ':expiresAt': expiresAt() },
        ...(extra.condition && { ConditionExpression: extra.condition }),
        ...(extra.returnAll && { ReturnValues: 'ALL_NEW' as const }),
      }),
    );

  return {
    forRun(executionId: string): RunTally {
      return {
        async spent() {
          const { Item } = await db.send(new GetCommand({ TableName: table(), Key: { counter: runTallyCounter(executionId) }, ConsistentRead: true }));
          return usageOf(Item).cost;
        },
        async countCall() {
          try {
            await update(executionId, 'ADD calls :one SET expiresAt = :expiresAt', { ':one': 1 }, { condition: 'attribute_not_exists(closedAt)' });
          } catch (error) {
            if (isConditionFailure(error)) throw new ForbiddenError(`run ${executionId} has finished: it makes no more resource calls`);
            throw error;
          }
        },
        async addCost(usd) {
          if (usd > 0) await update(executionId, 'ADD cost :usd SET expiresAt = :expiresAt', { ':usd': usd });
        },
        async stopForCost() {
          await update(executionId, 'SET stoppedForCost = :yes, expiresAt = :expiresAt', { ':yes': true });
        },
      };
    },

    /** Ends the run's calls (later ones are refused) and answers what they came to. */
    async close(executionId: string): Promise<RunUsage> {
      const { Attributes } = await update(
        executionId,
        'SET closedAt = :now, expiresAt = :expiresAt',
        { ':now': new Date().toISOString() },
        { returnAll: true },
      );
      return usageOf(Attributes);
    },
  };
}

export type RunTallies = ReturnType<typeof createRunTallies>;
