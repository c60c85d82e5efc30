// The RunSlots of AWS (run-slots.ts), across every function that runs scripts: item `running#<scriptId>` in
// scriptCounters holds the runs in progress, each with the time its lease lapses, so a run whose function died frees
// its place by itself. Reserved concurrency is not used: see docs/decisions.md. The same leases keyed by user
// (`running-user#<userId>`) cap what one tenant holds of the account's Lambda concurrency, which all script functions
// share (docs/security.md, fair run pool), and keyed by a script's concurrency key group (`running-key#...`: the run
// user's value, or the value of everyone for a global key) its `config.concurrency`.
import { createHash } from 'node:crypto';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { type Clock, systemClock } from '#platform/clock.js';
import { dynamo, isConditionFailure, tableName } from '#platform/dynamo.js';
import { TooManyRequestsError } from '#platform/errors.js';
import { limits } from '../model.js';
import { type RunSlots, type SlotClaim, keyBusy, perUserConcurrentRuns } from './run-slots.js';

export const runLeaseCounter = (scriptId: string) => `running#${scriptId}`;

/** What a lease counts: one script's runs (the interface's limit) or one user's runs (a tenant's share). */
export interface LeaseScope {
  counter(id: string): string;
  refusal(id: string, message: string): TooManyRequestsError;
  name: string;
}

export const scriptScope: LeaseScope = {
  counter: runLeaseCounter,
  refusal: (scriptId, message) => new TooManyRequestsError('CONCURRENCY_LIMIT', message, 1, { scriptId }),
  name: 'script',
};
export const userScope: LeaseScope = {
  counter: (userId) => `running-user#${userId}`,
  refusal: (userId, message) => new TooManyRequestsError('CONCURRENCY_LIMIT', message, 1, { userId }),
  name: 'user',
};

/** Runs starting together retry the conditional write; each round lets at least one of them in. */
const maxAttempts = 25;

/** One key group's runs of a script; the group is hashed, since its value comes from the run's data and may be long. */
const keyScope = (scriptId: string, key: NonNullable<SlotClaim['key']>): LeaseScope => ({
  counter: (group) => `running-key#${scriptId}#${createHash('sha256').update(group).digest('hex').slice(0, 32)}`,
  refusal: () => keyBusy(scriptId, key.value, key.limit),
  name: 'concurrency key value of script',
});

export function createRunLeases(options: { limit?: number; clock?: Clock; scope?: LeaseScope } = {}) {
  const db = dynamo();
  const table = () => tableName('scriptCounters');
  const scope = options.scope ?? scriptScope;
  const limit = options.limit ?? (scope === userScope ? perUserConcurrentRuns : limits.concurrentExecutionsPerScript);
  const clock = options.clock ?? systemClock;
  const concurrencyLimit = scope.refusal;

  return {
    /** Takes one of the script's (or user's) places for `holdMs`, or refuses with CONCURRENCY_LIMIT when all are taken. */
    async acquire(id: string, executionId: string, holdMs: number): Promise<void> {
      const Key = { counter: scope.counter(id) };
      for (let attempt = 0; attempt < maxAttempts; attempt++) {
        const { Item } = await db.send(new GetCommand({ TableName: table(), Key, ConsistentRead: true }));
        const now = clock.now();
        const live = Object.entries((Item?.runs ?? {}) as Record<string, number>).filter(([, until]) => until > now);
        if (live.length >= limit) throw concurrencyLimit(id, `${scope.name} ${id} already runs ${live.length} executions; the limit is ${limit}`);
        const runs = { ...Object.fromEntries(live), [executionId]: now + holdMs };
        const revision = Number(Item?.revision ?? 0);
        try {
          await db.send(
            new PutCommand({
              TableName: table(),
              Item: { ...Key, runs, revision: revision + 1, expiresAt: Math.ceil(Math.max(...Object.values(runs)) / 1000) + 86_400 },
              ConditionExpression: Item ? 'revision = :seen' : 'attribute_not_exists(#counter)',
              ...(Item ? { ExpressionAttributeValues: { ':seen': revision } } : { ExpressionAttributeNames: { '#counter': 'counter' } }),
            }),
          );
          return;
        } catch (error) {
          if (!isConditionFailure(error)) throw error;
          await new Promise((resolve) => setTimeout(resolve, 5 + Math.random() * 20));
        }
      }
      throw concurrencyLimit(id, `too many executions of ${scope.name} ${id} are starting at once`);
    },

    /** Gives the place back; the revision moves so a concurrent acquire cannot write the run back in. */
    async release(id: string, executionId: string): Promise<void> {
      try {
        await db.send(
          new UpdateCommand({
            TableName: table(),
            Key: { counter: scope.counter(id) },
            UpdateExpression: 'REMOVE runs.#run ADD revision :one',
            ConditionExpression: 'attribute_exists(runs.#run)',
            ExpressionAttributeNames: { '#run': executionId },
            ExpressionAttributeValues: { ':one': 1 },
          }),
        );
      } catch (error) {
        // Pruned after its lease lapsed: nothing to give back.
        if (!isConditionFailure(error)) throw error;
      }
    },
  };
}

export type RunLeases = ReturnType<typeof createRunLeases>;

/** Waits between attempts of a run that may wait for its slots: short at first, never longer than this. */
const retryPauseMs = { first: 100, max: 2000 } as const;

/**
 * RunSlots over leases: the key value's lease first (runs of a busy key value take nothing else), then the user's,
 * then the script's. A run that may wait asks again with growing pauses until `waitMs` has passed.
 */
export function createLeaseRunSlots(options: { clock?: Clock; perUser?: number } = {}): RunSlots {
  const clock = options.clock ?? systemClock;
  const scripts = createRunLeases({ clock });
  const users = createRunLeases({ clock, scope: userScope, limit: options.perUser });
  const leasesOf = (claim: SlotClaim): Array<[RunLeases, string]> => [
    ...(claim.key
      ? [[createRunLeases({ clock, scope: keyScope(claim.scriptId, claim.key), limit: claim.key.limit }), claim.key.group] as [RunLeases, string]]
      : []),
    [users, claim.userId],
    [scripts, claim.scriptId],
  ];

  async function takeOnce(claim: SlotClaim): Promise<void> {
    const taken: Array<[RunLeases, string]> = [];
    try {
      for (const [leases, id] of leasesOf(claim)) {
        await leases.acquire(id, claim.executionId, claim.holdMs);
        taken.push([leases, id]);
      }
    } catch (error) {
      await Promise.all(taken.map(([leases, id]) => leases.release(id, claim.executionId)));
      throw error;
    }
  }

  return {
    async take(claim, waitMs) {
      const deadline = clock.now() + waitMs;
      for (let pause: number = retryPauseMs.first; ; pause = Math.min(pause * 2, retryPauseMs.max)) {
        try {
          return await takeOnce(claim);
        } catch (error) {
          if (!(error instanceof TooManyRequestsError) || clock.now() + pause > deadline) throw error;
          await new Promise((resolve) => setTimeout(resolve, pause));
        }
      }
    },
    async release(claim) {
      await Promise.all(leasesOf(claim).map(([leases, id]) => leases.release(id, claim.executionId)));
    },
  };
}
