import { beforeAll, describe, expect, inject, it } from 'vitest';
import { claimLeaseMs, createDeliveryStore } from '../../functions/events/delivery-store.js';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from '../../functions/platform/dynamo.js';
import { type StoredSubscription, createSubscriptionIndex, createSubscriptionStore } from '../../functions/events/subscription-store.js';
import { createBatchedPuts } from '../../functions/events/batched-puts.js';
import { type StoreCallTally, countStoreCalls, tallyStoreCalls, watchStoreCalls } from '../../functions/adapters/local/store-calls.js';

beforeAll(() => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
});

let counter = 0;
const unique = (prefix: string) => `${prefix}_${process.pid}x${Date.now().toString(36)}x${counter++}`;

function clockAt(ms: number) {
  let now = ms;
  return { now: () => now, nowIso: () => new Date(now).toISOString(), advance: (by: number) => (now += by) };
}

describe('events: delivery ledger', () => {
  it('grants one claim per delivery even when claimed concurrently', async () => {
    // Prepare
    const ledger = createDeliveryStore(clockAt(Date.now()));
    const deliveryId = unique('evt');
    // Act
    const tokens = await Promise.all(Array.from({ length: 8 }, () => ledger.claim(deliveryId)));
    // Assess
    expect(tokens.filter(Boolean)).toHaveLength(1);
  });

  it('never grants a completed delivery again', async () => {
    // Prepare
    const clock = clockAt(Date.now());
    const ledger = createDeliveryStore(clock);
    const deliveryId = unique('evt');
    const token = (await ledger.claim(deliveryId))!;
    await ledger.complete(deliveryId, token, { result: 'executed', executionId: 'exe_1', status: 'success' });
    // Act
    clock.advance(claimLeaseMs * 2);
    const again = await ledger.claim(deliveryId);
    // Assess
    expect(again).toBeUndefined();
  });

  it('lets a retry take a released claim, or one whose holder died past its lease', async () => {
    // Prepare
    const clock = clockAt(Date.now());
    const ledger = createDeliveryStore(clock);
    const released = unique('evt');
    const abandoned = unique('evt');
    await ledger.release(released, (await ledger.claim(released))!);
    await ledger.claim(abandoned);
    // Act
    const afterRelease = await ledger.claim(released);
    const withinLease = await ledger.claim(abandoned);
    clock.advance(claimLeaseMs + 1);
    const afterLease = await ledger.claim(abandoned);
    // Assess
    expect(afterRelease).toEqual(expect.any(String));
    expect(withinLease).toBeUndefined();
    expect(afterLease).toEqual(expect.any(String));
  });
});

describe('events: delivery ledger retention', () => {
  it('keeps a claim made on a clock set in the past out of reach of the TTL sweeper, which runs on the wall clock', async () => {
    // Prepare: months before the wall clock, as the flow tests' clocks are.
    const ledger = createDeliveryStore(clockAt(Date.parse('2026-03-02T09:00:00.000Z')));
    const deliveryId = unique('flow-retry');
    // Act
    await ledger.claim(deliveryId);
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName('eventDeliveries'), Key: { deliveryId }, ConsistentRead: true }));
    // Assess: an expiry in the past would let DynamoDB delete the live claim before its completion.
    expect(Item!.expiresAt * 1000).toBeGreaterThan(Date.now() + 24 * 3600 * 1000);
  });
});

describe('events: delivery ledger under lost answers', () => {
  /** The network fault of a busy machine: DynamoDB applies the write, its answer is lost, and the SDK retries it. */
  function loseFirstAnswerOf(commandName: string, deliveryId: string) {
    let lost = false;
    const name = `lose-answer-${commandName}-${deliveryId}`;
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        const key = args.input as { Key?: { deliveryId?: { S?: string } }; Item?: { deliveryId?: { S?: string } } };
        const target = key.Key?.deliveryId?.S ?? key.Item?.deliveryId?.S;
        if (!lost && context.commandName === commandName && target === deliveryId) {
          lost = true;
          throw Object.assign(new Error('socket hang up'), { code: 'ECONNRESET', $metadata: {} });
        }
        return result;
      },
      { step: 'deserialize', name },
    );
    return () => dynamo().middlewareStack.remove(name);
  }

  it('keeps the claim and completes it when the first answer of each write is lost and the SDK retries', async () => {
    // Prepare
    const ledger = createDeliveryStore(clockAt(Date.now()));
    const deliveryId = unique('flow-retry');
    const restoreClaim = loseFirstAnswerOf('PutItemCommand', deliveryId);
    const restoreComplete = loseFirstAnswerOf('UpdateItemCommand', deliveryId);
    // Act
    const token = await ledger.claim(deliveryId);
    const completed = await ledger.complete(deliveryId, token!, { result: 'executed', executionId: 'exe_1', status: 'success' }).then(
      () => 'completed',
      (error: Error) => error.message,
    );
    restoreClaim();
    restoreComplete();
    // Assess
    expect(token).toEqual(expect.any(String));
    expect(completed).toBe('completed');
    expect(await ledger.claim(deliveryId)).toBeUndefined();
  });
});

describe('events: subscription store and dispatch index', () => {
  const subscription = (overrides: Partial<StoredSubscription> = {}): StoredSubscription => ({
    subscriptionId: unique('sub'),
    scriptId: unique('scr'),
    userId: unique('usr'),
    eventType: 'chatapp.message',
    conditions: [{ field: 'type', operator: 'exists' }],
    enabled: true,
    createdAt: '2026-03-02T10:00:00.000Z',
    updatedAt: '2026-03-02T10:00:00.000Z',
    ...overrides,
  });

  it('indexes enabled subscriptions by user and event type, and drops them from the index when disabled or deleted', async () => {
    // Prepare
    const store = createSubscriptionStore();
    const index = createSubscriptionIndex({ cached: false });
    const first = subscription();
    const second = subscription({ userId: first.userId });
    const otherType = subscription({ userId: first.userId, eventType: 'call.ended' });
    const disabled = subscription({ userId: first.userId, enabled: false });
    for (const item of [first, second, otherType, disabled]) await store.create(item);
    // Act
    const before = await index.active(first.userId, 'chatapp.message');
    await store.update(first, { ...first, enabled: false, updatedAt: '2026-03-02T10:00:01.000Z' });
    await store.delete(second);
    const after = await index.active(first.userId, 'chatapp.message');
    // Assess
    expect(before.map((item) => item.subscriptionId).sort()).toEqual([first.subscriptionId, second.subscriptionId].sort());
    expect(before.find((item) => item.subscriptionId === first.subscriptionId)).toEqual({
      dispatchKey: `${first.userId}#chatapp.message`,
      subscriptionId: first.subscriptionId,
      scriptId: first.scriptId,
      userId: first.userId,
      eventType: 'chatapp.message',
      conditions: first.conditions,
      updatedAt: first.updatedAt,
    });
    expect(after).toEqual([]);
    expect(await store.get(first.scriptId, first.subscriptionId)).toMatchObject({ enabled: false });
    expect(await store.get(second.scriptId, second.subscriptionId)).toBeUndefined();
  });

  it('refuses an update based on a stale read and changes nothing', async () => {
    // Prepare
    const store = createSubscriptionStore();
    const original = subscription();
    await store.create(original);
    await store.update(original, { ...original, conditions: [], updatedAt: '2026-03-02T10:00:01.000Z' });
    // Act
    const stale = store.update(original, { ...original, enabled: false, updatedAt: '2026-03-02T10:00:02.000Z' });
    // Assess
    await expect(stale).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    expect(await store.get(original.scriptId, original.subscriptionId)).toMatchObject({ enabled: true, conditions: [] });
    expect(await createSubscriptionIndex({ cached: false }).active(original.userId, 'chatapp.message')).toHaveLength(1);
  });

  it('keeps the local-mode cache of the index in step with every write of the store', async () => {
    // Prepare
    const store = createSubscriptionStore();
    const cached = createSubscriptionIndex({ cached: true });
    const first = subscription();
    const lookups: number[] = [];
    const look = async () => lookups.push((await cached.active(first.userId, 'chatapp.message')).length);
    // Act
    await look();
    await store.create(first);
    await look();
    await store.update(first, { ...first, enabled: false, updatedAt: '2026-03-02T10:00:01.000Z' });
    await look();
    const second = subscription({ userId: first.userId });
    await store.create(second);
    await look();
    await store.delete(second);
    await look();
    // Assess
    expect(lookups).toEqual([0, 1, 0, 1, 0]);
  });
});

describe('events: history writes', () => {
  const put = createBatchedPuts(() => tableName('eventHistory'), ['userId', 'historyKey']);
  const read = async (userId: string, historyKey: string) =>
    (await dynamo().send(new GetCommand({ TableName: tableName('eventHistory'), Key: { userId, historyKey }, ConsistentRead: true }))).Item;

  it('writes the records put together in batches of 25, each put answering once its item is written', async () => {
    // Prepare
    countStoreCalls(dynamo());
    const userId = unique('usr');
    const tallies: StoreCallTally[] = [];
    const unwatch = watchStoreCalls((tally) => tallies.push(tally));
    // Act
    await tallyStoreCalls('burst', userId, () =>
      Promise.all(Array.from({ length: 30 }, (_, index) => put({ userId, historyKey: `k${index}`, kind: 'event', eventJson: '{}' }))),
    );
    unwatch();
    // Assess
    expect(Object.fromEntries(tallies.find((tally) => tally.id === userId)!.calls)).toEqual({
      [`BatchWriteItemCommand ${tableName('eventHistory')}`]: 2,
    });
    const items = await Promise.all(Array.from({ length: 30 }, (_, index) => read(userId, `k${index}`)));
    expect(items.every(Boolean)).toBe(true);
  });

  it('keeps the last of two puts of one key made together', async () => {
    // Prepare
    const userId = unique('usr');
    // Act
    await Promise.all([
      put({ userId, historyKey: 'k', kind: 'event', eventJson: '"first"' }),
      put({ userId, historyKey: 'k', kind: 'event', eventJson: '"last"' }),
    ]);
    // Assess
    expect((await read(userId, 'k'))?.eventJson).toBe('"last"');
  });
});
