// Durable runs waiting for one of their user's events (`waitForEvent`). Each wait is stored under
// `<userId>#<eventType>`, so an event finds the runs waiting for it with one Query, never a scan. A matching event is
// claimed on the wait first (a retried event never resumes a run twice), handed to the engine, and then removed.
import { DeleteCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import type { Clock } from '#platform/clock.js';
import { dynamo, queryAll, tableName, unlessConditionFails } from '#platform/dynamo.js';
import { ConflictError } from '#platform/errors.js';
import { parseInput } from '#platform/validation.js';
import { Duration } from '#functions/scripts/schemas.js';
import { compileConditionList } from './conditions/engine.js';
import { scriptDialect } from './conditions/script-dialect.js';
import { createLocalLookups } from './local-lookups.js';
import type { EventObject } from '#platform/event-object.js';
import { SubscribableEventType } from '#platform/event-types.js';

/** The engine: completes the run's event wait with the event and resumes the run; false when the wait no longer waits. */
export interface EventWaitResolver {
  resolve(executionId: string, name: string, outcome: { result: EventObject }): Promise<boolean>;
}

export interface EventWait {
  waitKey: string;
  waitId: string;
  executionId: string;
  name: string;
  userId: string;
  eventType: string;
  conditions: unknown[];
  createdAt: string;
  expiresAt: string;
  /** The event that resumed the run, while the engine is handed it. */
  matchedEventId?: string;
  retainUntil: number;
}

const defaultWaitSeconds = 7 * 24 * 3600;

/** What the run's code passes to `waitForEvent(name, {eventType, conditions, timeout})`, checked before anything is stored. */
export const EventWaitInput = z.strictObject({
  eventType: SubscribableEventType,
  conditions: z.array(z.unknown()).default([]),
  timeout: Duration.default(defaultWaitSeconds),
});

const waitKeyOf = (userId: string, eventType: string) => `${userId}#${eventType}`;
const waitIdOf = (executionId: string, name: string) => `${executionId}#${name}`;

/** Each key's waits kept in memory locally (see local-lookups.ts): most events, of types nobody waits for, read nothing. */
const localWaits = createLocalLookups<EventWait[]>();

export function createEventWaitStore(options: { cached: boolean }) {
  const db = dynamo();
  const table = () => tableName('eventWaits');
  const key = (wait: Pick<EventWait, 'waitKey' | 'waitId'>) => ({ waitKey: wait.waitKey, waitId: wait.waitId });
  const query = (waitKey: string) =>
    queryAll<EventWait>({ TableName: table(), KeyConditionExpression: 'waitKey = :key', ExpressionAttributeValues: { ':key': waitKey }, ConsistentRead: true });
  const forget = <T>(waitKey: string, written: T) => {
    localWaits.forget(waitKey);
    return written;
  };
  return {
    put: async (wait: EventWait) =>
      forget(
        wait.waitKey,
        Boolean(await unlessConditionFails(db.send(new PutCommand({ TableName: table(), Item: wait, ConditionExpression: 'attribute_not_exists(waitId)' })))),
      ),
    waiting(userId: string, eventType: string): Promise<EventWait[]> {
      const waitKey = waitKeyOf(userId, eventType);
      return options.cached ? localWaits.get(waitKey, query) : query(waitKey);
    },
    /** Takes the wait for one event; false when another event holds it, or it is gone. */
    claim: async (wait: EventWait, eventId: string) =>
      Boolean(
        await unlessConditionFails(
          db.send(
            new UpdateCommand({
              TableName: table(),
              Key: key(wait),
              UpdateExpression: 'SET matchedEventId = :event',
              ConditionExpression: 'attribute_exists(waitId) AND (attribute_not_exists(matchedEventId) OR matchedEventId = :event)',
              ExpressionAttributeValues: { ':event': eventId },
            }),
          ),
        ),
      ),
    release: (wait: EventWait, eventId: string) =>
      unlessConditionFails(
        db.send(
          new UpdateCommand({
            TableName: table(),
            Key: key(wait),
            UpdateExpression: 'REMOVE matchedEventId',
            ConditionExpression: 'matchedEventId = :event',
            ExpressionAttributeValues: { ':event': eventId },
          }),
        ),
      ),
    remove: async (wait: Pick<EventWait, 'waitKey' | 'waitId'>) =>
      forget(wait.waitKey, await db.send(new DeleteCommand({ TableName: table(), Key: key(wait) }))),
  };
}

export type EventWaitStore = ReturnType<typeof createEventWaitStore>;

export function createEventWaits(deps: { store: EventWaitStore; resolver: EventWaitResolver; clock: Clock }) {
  return {
    /** Stores a run's wait; the conditions are compiled first, so bad ones are VALIDATION_ERROR at the call. */
    async open(
      run: { executionId: string; userId: string },
      name: string,
      raw: unknown,
    ): Promise<{ expiresAt: string; timeoutSeconds: number; eventType: string }> {
      const input = parseInput(EventWaitInput, raw);
      compileConditionList(input.conditions, scriptDialect);
      const now = deps.clock.now();
      const expiresAt = new Date(now + input.timeout * 1000).toISOString();
      const stored = await deps.store.put({
        waitKey: waitKeyOf(run.userId, input.eventType),
        waitId: waitIdOf(run.executionId, name),
        executionId: run.executionId,
        name,
        userId: run.userId,
        eventType: input.eventType,
        conditions: input.conditions,
        createdAt: new Date(now).toISOString(),
        expiresAt,
        retainUntil: Math.floor(now / 1000) + input.timeout + 24 * 3600,
      });
      if (!stored) throw new ConflictError(`run ${run.executionId} already waits as ${name}`);
      return { expiresAt, timeoutSeconds: input.timeout, eventType: input.eventType };
    },

    /** Removes the wait of a run that ended while it waited: no later event of its type reads it. */
    close: (run: { executionId: string; userId: string }, name: string, eventType: string) =>
      deps.store.remove({ waitKey: waitKeyOf(run.userId, eventType), waitId: waitIdOf(run.executionId, name) }),

    /** The open waits of a user for an event type: one Query (none locally while they are known), whatever else the user waits for. */
    async waiting(userId: string, eventType: string): Promise<EventWait[]> {
      const now = deps.clock.nowIso();
      return (await deps.store.waiting(userId, eventType)).filter((wait) => wait.expiresAt > now);
    },

    /**
     * Resumes the run of a wait its event matched (the trigger pipeline tested the conditions), once: false when the wait
     * has expired, another event holds it, or the run no longer waits.
     */
    async resume(wait: EventWait, event: EventObject): Promise<boolean> {
      if (wait.expiresAt <= deps.clock.nowIso() || !(await deps.store.claim(wait, event.id))) return false;
      let resumed: boolean;
      try {
        resumed = await deps.resolver.resolve(wait.executionId, wait.name, { result: event });
      } catch (error) {
        await deps.store.release(wait, event.id);
        throw error;
      }
      // Resumed, or the run stopped waiting (timed out, cancelled): either way no later event may take the wait.
      await deps.store.remove(wait);
      return resumed;
    },
  };
}

export type EventWaits = ReturnType<typeof createEventWaits>;
