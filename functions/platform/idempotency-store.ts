// The record of one idempotent request: claimed by a conditional write before the work, then holding its answer for
// 24 hours (the table's TTL), so a repeat with the same key answers it again instead of working twice.
import { gunzipSync, gzipSync } from 'node:zlib';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { dynamo, tableName } from './dynamo.js';

export const idempotencyRetentionSeconds = 24 * 60 * 60;

export interface StoredAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

export type IdempotencyRecord =
  | { state: 'claimed'; fingerprint: string; leaseUntil: number }
  | { state: 'answered'; fingerprint: string; answer: StoredAnswer };

export interface IdempotencyStore {
  /** Takes the key for request `holder`: true unless a live claim or a kept answer holds it. */
  claim(key: string, holder: string, fingerprint: string, leaseSeconds: number, nowMs: number): Promise<boolean>;
  /** The live record: undefined when there is none or its 24 hours have passed. */
  get(key: string, nowMs: number): Promise<IdempotencyRecord | undefined>;
  /** Keeps the answer of the claim's holder. */
  answer(key: string, holder: string, answer: StoredAnswer, nowMs: number): Promise<void>;
  /** Gives the holder's claim up: its request changed nothing, so a retry may do the work. */
  release(key: string, holder: string): Promise<void>;
}

const seconds = (ms: number) => Math.floor(ms / 1000);

export const dynamoIdempotencyStore: IdempotencyStore = {
  async claim(key, holder, fingerprint, leaseSeconds, nowMs) {
    try {
      await dynamo().send(
        new PutCommand({
          TableName: tableName('idempotencyKeys'),
          Item: {
            key,
            state: 'claimed',
            holder,
            fingerprint,
            leaseUntil: seconds(nowMs) + leaseSeconds,
            expiresAt: seconds(nowMs) + idempotencyRetentionSeconds,
          },
          // A claim whose holder died past its function's timeout, or an answer past its 24 hours that TTL has not swept yet, is free.
          ConditionExpression: 'attribute_not_exists(#key) OR (#state = :claimed AND leaseUntil < :now) OR expiresAt < :now',
          ExpressionAttributeNames: { '#key': 'key', '#state': 'state' },
          ExpressionAttributeValues: { ':claimed': 'claimed', ':now': seconds(nowMs) },
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  },

  async get(key, nowMs) {
    const { Item } = await dynamo().send(new GetCommand({ TableName: tableName('idempotencyKeys'), Key: { key }, ConsistentRead: true }));
    if (!Item || Item.expiresAt < seconds(nowMs)) return undefined;
    if (Item.state === 'claimed') return { state: 'claimed', fingerprint: Item.fingerprint, leaseUntil: Item.leaseUntil };
    const answer = JSON.parse(gunzipSync(Item.answer).toString('utf8')) as StoredAnswer;
    return { state: 'answered', fingerprint: Item.fingerprint, answer };
  },

  async answer(key, holder, answer, nowMs) {
    await dynamo().send(
      new UpdateCommand({
        TableName: tableName('idempotencyKeys'),
        Key: { key },
        // Compressed: an execution's answer carries its output and logs, and an item holds at most 400 KB.
        UpdateExpression: 'SET #state = :answered, answer = :answer, expiresAt = :expiresAt REMOVE leaseUntil, holder',
        ConditionExpression: '#state = :claimed AND holder = :holder',
        ExpressionAttributeNames: { '#state': 'state' },
        ExpressionAttributeValues: {
          ':answered': 'answered',
          ':claimed': 'claimed',
          ':holder': holder,
          ':answer': gzipSync(JSON.stringify(answer)),
          ':expiresAt': seconds(nowMs) + idempotencyRetentionSeconds,
        },
      }),
    );
  },

  async release(key, holder) {
    await dynamo()
      .send(
        new DeleteCommand({
          TableName: tableName('idempotencyKeys'),
          Key: { key },
          ConditionExpression: '#state = :claimed AND holder = :holder',
          ExpressionAttributeNames: { '#state': 'state' },
          ExpressionAttributeValues: { ':claimed': 'claimed', ':holder': holder },
        }),
      )
      .catch((error) => {
        if (!(error instanceof ConditionalCheckFailedException)) throw error;
      });
  },
};
