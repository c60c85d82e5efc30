// The delivery ledger in DynamoDB: a conditional put claims a delivery before its script runs.
import { randomUUID } from 'node:crypto';
import { DeleteCommand, GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { Clock } from '#platform/clock.js';
import { dynamo, isConditionFailure, tableName } from '#platform/dynamo.js';
import type { DeliveryLedger } from './ports.js';

/**
 * How long a claim holds without being completed. Longer than the longest script run (300 s), so only a
 * worker that died mid-run (a Lambda timeout) leaves a claim that a later retry can take over.
 */
export const claimLeaseMs = 6 * 60_000;
/** Ledger entries outlive EventBridge's longest retry window (24 h) with room to spare. */
const retentionSeconds = 7 * 24 * 3600;
/**
 * DynamoDB's TTL sweeper compares `expiresAt` with its own wall clock, so the expiry comes from the wall clock, not
 * the injected one: a clock set in the past (tests, a replay) would otherwise write entries already expired, and
 * the sweeper could delete a live claim between claim and complete.
 */
const retainedUntil = () => Math.floor(Date.now() / 1000) + retentionSeconds;

/**
 * The SDK retries a write whose answer was lost (a reset connection, a 5xx) although the first attempt may have been
 * applied; a conditional write then fails on its own earlier success. Each write carries the claim's token, so a
 * failed condition is read back: the entry holding our token means the earlier attempt went through.
 */
export function createDeliveryStore(clock: Clock): DeliveryLedger {
  const db = dynamo();
  const table = () => tableName('eventDeliveries');
  const current = async (deliveryId: string) =>
    (await db.send(new GetCommand({ TableName: table(), Key: { deliveryId }, ConsistentRead: true }))).Item as { token?: string; status?: string } | undefined;
  return {
    async claim(deliveryId) {
      const token = randomUUID();
      const now = clock.now();
      try {
        await db.send(
          new PutCommand({
            TableName: table(),
            Item: { deliveryId, status: 'running', token, leaseUntil: now + claimLeaseMs, claimedAt: new Date(now).toISOString(), expiresAt: retainedUntil() },
            ConditionExpression: 'attribute_not_exists(deliveryId) OR (#status = :running AND leaseUntil < :now)',
            ExpressionAttributeNames: { '#status': 'status' },
            ExpressionAttributeValues: { ':running': 'running', ':now': now },
          }),
        );
        return token;
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        return (await current(deliveryId))?.token === token ? token : undefined;
      }
    },
    async complete(deliveryId, token, outcome) {
      try {
        await db.send(
          new UpdateCommand({
            TableName: table(),
            Key: { deliveryId },
            UpdateExpression: 'SET #status = :done, outcome = :outcome, completedAt = :at REMOVE leaseUntil',
            ConditionExpression: '#token = :token',
            ExpressionAttributeNames: { '#status': 'status', '#token': 'token' },
            ExpressionAttributeValues: { ':done': 'done', ':outcome': outcome, ':at': clock.nowIso(), ':token': token },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
        const entry = await current(deliveryId);
        if (entry?.token === token && entry.status === 'done') return;
        throw new Error(
          `the claim on delivery ${deliveryId} was lost before it completed (${entry ? 'another worker took it over past its lease' : 'it was released'})`,
        );
      }
    },
    async release(deliveryId, token) {
      try {
        await db.send(
          new DeleteCommand({
            TableName: table(),
            Key: { deliveryId },
            ConditionExpression: '#token = :token',
            ExpressionAttributeNames: { '#token': 'token' },
            ExpressionAttributeValues: { ':token': token },
          }),
        );
      } catch (error) {
        if (!isConditionFailure(error)) throw error;
      }
    },
  };
}
