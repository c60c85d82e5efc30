// The interface's 10 concurrent executions per script, across every function that runs scripts on AWS (the local pool
// counts in memory): item `running#<scriptId>` in scriptCounters holds the runs in progress, each with the time its
// lease lapses, so a run whose function died frees its place by itself. Reserved concurrency is not used: see
// docs/decisions.md.
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Clock, systemClock } from '#platform/clock.js';
import { dynamo, isConditionFailure, tableName } from '#platform/dynamo.js';
import { TooManyRequestsError } from '#platform/errors.js';
import { limits } from './model.js';

export const runLeaseCounter = (scriptId: string) => `running#${scriptId}`;

/** Runs starting together retry the conditional write; each round lets at least one of them in. */
const maxAttempts = 25;

const concurrencyLimit = (scriptId: string, message: string) => new TooManyRequestsError('CONCURRENCY_LIMIT', message, 1, { scriptId });

export function createRunLeases(options: { limit?: number; clock?: Clock } = {}) {
  const db = dynamo();
  const table = () => tableName('scriptCounters');
  const limit = options.limit ?? limits.concurrentExecutionsPerScript;
  const clock = options.clock ?? systemClock;

  return {
    /** Takes one of the script's places for `holdMs`, or refuses with CONCURRENCY_LIMIT when all are taken. */
    async acquire(scriptId: string, executionId: string, holdMs: number): Promise<void> {
      const Key = { counter: runLeaseCounter(scriptId) };
      for (let attempt = 0; attempt < maxAttempts; attempt++) {
        const { Item } = await db.send(new GetCommand({ TableName: table(), Key, ConsistentRead: true }));
        const now = clock.now();
        const live = Object.entries((Item?.runs ?? {}) as Record<string, number>).filter(([, until]) => until > now);
        if (live.length >= limit) throw concurrencyLimit(scriptId, `script ${scriptId} already runs ${live.length} executions; the limit is ${limit}`);
        const runs = { ...Object.fromEntries(live), [executionId]: now + holdMs };
        const revision = Number(Item?.revision ?? 0);
        try {
          await db.send(new PutCommand({
            TableName: table(),
            Item: { ...Key, runs, revision: revision + 1, expiresAt: Math.ceil(Math.max(...Object.values(runs)) / 1000) + 86_400 },
            ConditionExpression: Item ? 'revision = :seen' : 'attribute_not_exists(#counter)',
            ...(Item ? { ExpressionAttributeValues: { ':seen': revision } } : { ExpressionAttributeNames: { '#counter': 'counter' } }),
          }));
          return;
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
        }
      }
      throw concurrencyLimit(scriptId, `too many executions of script ${scriptId} are starting at once`);
    },

    /** Gives the place back; the revision moves so a concurrent acquire cannot write the run back in. */
    async release(scriptId: string, executionId: string): Promise<void> {
      try {
        await db.send(new UpdateCommand({
          TableName: table(),
          Key: { counter: runLeaseCounter(scriptId) },
          UpdateExpression: 'REMOVE runs.#run ADD revision :one',
          ConditionExpression: 'attribute_exists(runs.#run)',
          ExpressionAttributeNames: { '#run': executionId },
          ExpressionAttributeValues: { ':one': 1 },
        }));
      } catch (error) {
        // Pruned after its lease lapsed: nothing to give back.
        if (!isConditionFailure(error)) throw error;
      }
    },
  };
}

export type RunLeases = ReturnType<typeof createRunLeases>;
