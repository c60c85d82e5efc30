// DynamoDB access for flows and their owners' counters. User edits are conditional on `updatedAt` (optimistic
// locking); executions touch only their own attributes (`runs`, counters), so the two never overwrite each other.
// Every change of what searchFlows filters on bumps the owner's `revision`, which its cache checks.
import { BatchGetCommand, type BatchGetCommandOutput, GetCommand, TransactWriteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { settings } from '#platform/settings.js';
import { dynamo, isConditionFailure, queryAll, tableName } from '#platform/dynamo.js';
import { updateExpression } from '#platform/update-expression.js';
import { type FlowItem, eventKeyOf, flowLimits } from './model.js';

export interface OwnerCounters {
  userId: string;
  flowCount: number;
  /** UTC day (YYYY-MM-DD) that `createdOnDay` counts. */
  createdDay: string;
  createdOnDay: number;
  /** Bumped by every change to the owner's flows other than execution counters. */
  revision: number;
  /**
   * Every kept execution result of the owner's flows has its lookup (execution-store.ts): set with the owner's first
   * flow, or once the results of flows from before lookups existed have theirs (flows/run-operations.ts).
   */
  executionsIndexed?: boolean;
  /** Every run the owner's flows kept in their rings is in the one run record too (run-records.ts): set with the owner's first flow, or once they were brought in. */
  runsMigrated?: boolean;
}

/** A flow as a firing names it: the run starts only if the flow still belongs to that user. */
export interface FlowRef {
  flowId: string;
  userId: string;
}

/** Why a run could not start; `duplicate`: this schedule firing was already run. */
export type RunRefusal = 'gone' | 'not_runnable' | 'busy' | 'duplicate';

export type FlowCounters = Pick<FlowItem, 'flowId' | 'executionCount' | 'lastExecutedAt'>;

/**
 * Local mode, one process: the `eventKey`s known to have no active event flow, so the many events no flow listens to
 * skip the index query. A write that gives a flow an `eventKey` forgets it and moves `eventFlowWrites` before and
 * after, so a query overlapping that write never records its possibly older empty answer.
 */
const withoutEventFlows = new Set<string>();
const maxRememberedEmpty = 50_000;
let eventFlowWrites = 0;
/** Queries under way, shared by the events that arrive meanwhile while no write has begun since they started. */
const pendingEventQueries = new Map<string, { writesBefore: number; found: Promise<FlowItem[]> }>();

async function addingEventKey<T>(eventKey: string | undefined, write: () => Promise<T>): Promise<T> {
  if (!eventKey) return write();
  eventFlowWrites++;
  withoutEventFlows.delete(eventKey);
  try {
    return await write();
  } finally {
    eventFlowWrites++;
  }
}

const projection = (fields: readonly string[]) => ({
  ProjectionExpression: fields.map((_, index) => `#p${index}`).join(', '),
  ExpressionAttributeNames: Object.fromEntries(fields.map((field, index) => [`#p${index}`, field])),
});

export function createFlowStore() {
  const db = dynamo();
  const flows = () => tableName('flows');
  const owners = () => tableName('flowOwners');

  const conditional = async (write: () => Promise<unknown>): Promise<boolean> => {
    try {
      await write();
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  };
  const touchOwner = (userId: string) =>
    db.send(new UpdateCommand({ TableName: owners(), Key: { userId }, UpdateExpression: 'ADD revision :one', ExpressionAttributeValues: { ':one': 1 } }));

  return {
    async getOwner(userId: string): Promise<OwnerCounters | undefined> {
      return (await db.send(new GetCommand({ TableName: owners(), Key: { userId }, ConsistentRead: true }))).Item as OwnerCounters | undefined;
    },

    /**
     * The flow and its owner's counters in one transaction, within the limits: counting on `day` (atomic ADDs, so
     * creations of one user do not conflict), or starting that day's count when the stored one is another day's. The
     * owner's first flow (`firstFlow`: the owner has none) marks their executions as indexed: none came before.
     * False when a limit was reached, or the day or the owner's flows changed meanwhile.
     */
    create(flow: FlowItem, day: string, startsDay: boolean, limits: { flows: number; perDay: number }, firstFlow = false): Promise<boolean> {
      const counting = startsDay
        ? {
            set: 'createdDay = :day, createdOnDay = :one',
            condition: '(attribute_not_exists(createdDay) OR createdDay <> :day) AND (attribute_not_exists(flowCount) OR flowCount < :flows)',
            values: { ':day': day, ':one': 1, ':flows': limits.flows },
          }
        : {
            set: '',
            condition: 'createdDay = :day AND createdOnDay < :perDay AND flowCount < :flows',
            values: { ':day': day, ':one': 1, ':flows': limits.flows, ':perDay': limits.perDay },
          };
      const set = [counting.set, firstFlow ? 'executionsIndexed = :indexed, runsMigrated = :indexed' : ''].filter(Boolean).join(', ');
      const owner = {
        UpdateExpression: `${set ? `SET ${set} ` : ''}ADD flowCount :one, ${startsDay ? '' : 'createdOnDay :one, '}revision :one`,
        ConditionExpression: firstFlow ? `${counting.condition} AND (attribute_not_exists(flowCount) OR flowCount = :none)` : counting.condition,
        ExpressionAttributeValues: { ...counting.values, ...(firstFlow && { ':indexed': true, ':none': 0 }) },
      };
      return addingEventKey(flow.eventKey, () =>
        conditional(() =>
          db.send(
            new TransactWriteCommand({
              TransactItems: [
                { Put: { TableName: flows(), Item: flow, ConditionExpression: 'attribute_not_exists(flowId)' } },
                { Update: { TableName: owners(), Key: { userId: flow.userId }, ...owner } },
              ],
            }),
          ),
        ),
      );
    },

    async get(flowId: string): Promise<FlowItem | undefined> {
      return (await db.send(new GetCommand({ TableName: flows(), Key: { flowId }, ConsistentRead: true }))).Item as FlowItem | undefined;
    },

    /** Records that every kept execution result of the user's flows has its lookup. */
    markExecutionsIndexed: async (userId: string) =>
      void (await db.send(
        new UpdateCommand({
          TableName: owners(),
          Key: { userId },
          UpdateExpression: 'SET executionsIndexed = :indexed',
          ExpressionAttributeValues: { ':indexed': true },
        }),
      )),

    markRunsMigrated: async (userId: string) =>
      void (await db.send(
        new UpdateCommand({
          TableName: owners(),
          Key: { userId },
          UpdateExpression: 'SET runsMigrated = :migrated',
          ExpressionAttributeValues: { ':migrated': true },
        }),
      )),

    /** Every flow of a user, newest first; `fields` keeps only those attributes. */
    listByUser(userId: string, fields?: readonly string[]): Promise<FlowItem[]> {
      return queryAll<FlowItem>({
        TableName: flows(),
        IndexName: 'byUser',
        KeyConditionExpression: 'userId = :userId',
        ExpressionAttributeValues: { ':userId': userId },
        ScanIndexForward: false,
        ...(fields && projection(fields)),
      });
    },

    /** Execution counters of some flows (a page of search results), read consistently in one batch. */
    async counters(flowIds: string[]): Promise<FlowCounters[]> {
      if (flowIds.length === 0) return [];
      const found: FlowCounters[] = [];
      let keys: Array<Record<string, unknown>> | undefined = flowIds.map((flowId) => ({ flowId }));
      while (keys?.length) {
        const answer: BatchGetCommandOutput = await db.send(
          new BatchGetCommand({
            RequestItems: { [flows()]: { Keys: keys, ConsistentRead: true, ...projection(['flowId', 'executionCount', 'lastExecutedAt']) } },
          }),
        );
        found.push(...((answer.Responses?.[flows()] ?? []) as FlowCounters[]));
        keys = answer.UnprocessedKeys?.[flows()]?.Keys;
      }
      return found;
    },

    /** The active event flows of a user for an event type (the sparse index). */
    async activeForEvent(userId: string, eventType: string): Promise<FlowItem[]> {
      const key = eventKeyOf(userId, eventType);
      const remember = settings.mode === 'local';
      if (remember && withoutEventFlows.has(key)) return [];
      const writesBefore = eventFlowWrites;
      const pending = remember ? pendingEventQueries.get(key) : undefined;
      if (pending?.writesBefore === writesBefore) return pending.found;
      const query = queryAll<FlowItem>({
        TableName: flows(),
        IndexName: 'byEventTrigger',
        KeyConditionExpression: 'eventKey = :key',
        ExpressionAttributeValues: { ':key': key },
      });
      const entry = { writesBefore, found: query };
      if (remember) pendingEventQueries.set(key, entry);
      try {
        const found = await query;
        if (remember && found.length === 0 && writesBefore === eventFlowWrites) {
          if (withoutEventFlows.size >= maxRememberedEmpty) withoutEventFlows.clear();
          withoutEventFlows.add(key);
        }
        return found;
      } finally {
        if (pendingEventQueries.get(key) === entry) pendingEventQueries.delete(key);
      }
    },

    /** A user's change, applied only if nobody changed the flow since `seen` was read; false otherwise. */
    async update(seen: FlowItem, patch: Partial<FlowItem>, remove: (keyof FlowItem)[] = []): Promise<boolean> {
      const { expression, names, values } = updateExpression(patch, remove);
      const done = await addingEventKey(patch.eventKey, () =>
        conditional(() =>
          db.send(
            new UpdateCommand({
              TableName: flows(),
              Key: { flowId: seen.flowId },
              UpdateExpression: expression,
              ConditionExpression: '#seen = :seen',
              ExpressionAttributeNames: { ...names, '#seen': 'updatedAt' },
              ExpressionAttributeValues: { ...values, ':seen': seen.updatedAt },
            }),
          ),
        ),
      );
      if (done) await touchOwner(seen.userId);
      return done;
    },

    /** Removes the flow and counts it off its owner; false when it changed since it was read. */
    remove(flow: FlowItem): Promise<boolean> {
      return conditional(() =>
        db.send(
          new TransactWriteCommand({
            TransactItems: [
              {
                Delete: {
                  TableName: flows(),
                  Key: { flowId: flow.flowId },
                  ConditionExpression: 'updatedAt = :seen',
                  ExpressionAttributeValues: { ':seen': flow.updatedAt },
                },
              },
              {
                Update: {
                  TableName: owners(),
                  Key: { userId: flow.userId },
                  UpdateExpression: 'ADD flowCount :minus, revision :one',
                  ExpressionAttributeValues: { ':minus': -1, ':one': 1 },
                },
              },
            ],
          }),
        ),
      );
    },

    /**
     * Claims one of the flow's concurrent execution slots and counts the execution; the flow must belong to
     * `ref.userId` and be in one of `statuses`. A schedule firing passes its minute: each minute runs once (this
     * write is its claim). Returns the flow after the write (its executionCount numbers this execution) or why not.
     */
    async startRun(ref: FlowRef, run: { executionId: string; startedAt: string; statuses: string[]; firing?: string }): Promise<FlowItem | RunRefusal> {
      const allowed = Object.fromEntries(run.statuses.map((status, index) => [`:status${index}`, status]));
      const firing = run.firing
        ? { set: ', lastFiring = :firing', condition: ' AND (attribute_not_exists(lastFiring) OR lastFiring < :firing)', values: { ':firing': run.firing } }
        : undefined;
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: flows(),
            Key: { flowId: ref.flowId },
            UpdateExpression: `SET #runs.#execution = :started, lastExecutedAt = :at${firing?.set ?? ''} ADD executionCount :one`,
            ConditionExpression: `userId = :userId AND #status IN (${Object.keys(allowed).join(', ')}) AND size(#runs) < :max${firing?.condition ?? ''}`,
            ExpressionAttributeNames: { '#runs': 'runs', '#execution': run.executionId, '#status': 'status' },
            ExpressionAttributeValues: {
              ...allowed,
              ...firing?.values,
              ':userId': ref.userId,
              ':started': Date.parse(run.startedAt),
              ':at': run.startedAt,
              ':one': 1,
              ':max': flowLimits.concurrentExecutions,
            },
            ReturnValues: 'ALL_NEW',
          }),
        );
        return Attributes as FlowItem;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const flow = await this.get(ref.flowId);
        if (!flow || flow.userId !== ref.userId) return 'gone';
        if (!run.statuses.includes(flow.status)) return 'not_runnable';
        return run.firing && flow.lastFiring && flow.lastFiring >= run.firing ? 'duplicate' : 'busy';
      }
    },

    /**
     * Frees the executions' slots; `scriptFailures` counts one more failure of a direct flow's script, or starts
     * over after a success. Returns the count after the write (undefined when the flow is gone).
     */
    async finishRun(flowId: string, executionIds: string[], scriptFailures?: 'count' | 'reset'): Promise<number | undefined> {
      const { expression, names, values } = updateExpression(
        scriptFailures === 'reset' ? { scriptFailures: 0 } : {},
        executionIds.map((id) => ['runs', id]),
      );
      const counting = scriptFailures === 'count';
      try {
        const { Attributes } = await db.send(
          new UpdateCommand({
            TableName: flows(),
            Key: { flowId },
            UpdateExpression: (counting ? `${expression} ADD scriptFailures :one` : expression).trim(),
            ConditionExpression: 'attribute_exists(flowId)',
            ExpressionAttributeNames: names,
            ExpressionAttributeValues: counting ? { ...values, ':one': 1 } : values,
            ReturnValues: 'ALL_NEW',
          }),
        );
        return (Attributes as FlowItem).scriptFailures;
      } catch (error) {
        // Deleted while it ran: nothing left to update.
        if (isConditionFailure(error)) return undefined;
        throw error;
      }
    },

    /** Pauses an active flow (the failure policy); false when it is no longer active. */
    async pauseActive(flow: FlowRef, at: string): Promise<boolean> {
      const done = await conditional(() =>
        db.send(
          new UpdateCommand({
            TableName: flows(),
            Key: { flowId: flow.flowId },
            UpdateExpression: 'SET #status = :paused, pausedAt = :at, updatedAt = :at REMOVE eventKey',
            ConditionExpression: '#status = :active',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':paused': 'paused', ':active': 'active', ':at': at },
          }),
        ),
      );
      if (done) await touchOwner(flow.userId);
      return done;
    },
  };
}

export type FlowStore = ReturnType<typeof createFlowStore>;
