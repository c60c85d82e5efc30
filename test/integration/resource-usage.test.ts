// How an installation records its calls: one write per call, today's count only, recentCalls bounded.
import { DeleteCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { dynamo, tableName } from '../../functions/platform/dynamo.js';
import { createInstallationStore, recentCallsKept } from '../../functions/resources/installation-store.js';
import type { InstallationItem } from '../../functions/resources/records.js';

beforeAll(() => {
  process.env.PLATFORM_MODE = 'local';
  process.env.DYNAMODB_ENDPOINT = inject('dynamoEndpoint');
});

let counter = 0;
async function givenInstallation(): Promise<InstallationItem> {
  const item: InstallationItem = {
    userId: `usr_usage${Date.now()}${counter++}`,
    resourceId: 'res_usage',
    installationId: `ins_usage${Date.now()}${counter++}`,
    resourceName: 'usage',
    resourceOwnerId: 'usr_owner',
    version: 1,
    status: 'active',
    isAuthenticated: true,
    installedAt: new Date().toISOString(),
    totalCalls: 0,
    failedCalls: 0,
    totalCost: 0,
    recentCalls: [],
    dailyCalls: {},
  };
  await dynamo().send(new PutCommand({ TableName: tableName('resourceInstallations'), Item: item }));
  return item;
}

const call = (timestamp: string, success = true) => ({ timestamp, method: 'm', cost: success ? 0.5 : 0, duration: 3, success });

describe('resources: usage recording', () => {
  it("counts calls per UTC day, keeping only the current day's count", async () => {
    // Prepare
    const store = createInstallationStore();
    const item = await givenInstallation();
    // Act
    await store.recordCall(item, call('2026-03-01T23:59:00.000Z'));
    await store.recordCall(item, call('2026-03-01T23:59:30.000Z', false));
    const dayOne = (await store.get(item.userId, item.resourceId))!;
    await store.recordCall(dayOne, call('2026-03-02T00:00:10.000Z'));
    const dayTwo = (await store.get(item.userId, item.resourceId))!;
    // Assess
    expect(dayOne.dailyCalls).toEqual({ '2026-03-01': 2 });
    expect(dayTwo.dailyCalls).toEqual({ '2026-03-02': 1 });
    expect(dayTwo).toMatchObject({ totalCalls: 3, failedCalls: 1, totalCost: 1, lastUsedAt: '2026-03-02T00:00:10.000Z' });
  });

  it('keeps recentCalls bounded while counting every call', async () => {
    // Prepare
    const store = createInstallationStore();
    let item = await givenInstallation();
    // Act
    for (let index = 0; index < 45; index++) {
      await store.recordCall(item, call(new Date(Date.UTC(2026, 2, 1, 10, 0, index)).toISOString()));
      item = (await store.get(item.userId, item.resourceId))!;
    }
    // Assess
    expect(item.totalCalls).toBe(45);
    expect(item.recentCalls.length).toBeGreaterThanOrEqual(recentCallsKept);
    expect(item.recentCalls.length).toBeLessThan(recentCallsKept + 10);
    expect(item.recentCalls.at(-1)!.timestamp).toBe(new Date(Date.UTC(2026, 2, 1, 10, 0, 44)).toISOString());
  });

  it('records nothing on an installation removed meanwhile', async () => {
    // Prepare
    const store = createInstallationStore();
    const item = await givenInstallation();
    await dynamo().send(new DeleteCommand({ TableName: tableName('resourceInstallations'), Key: { userId: item.userId, resourceId: item.resourceId } }));
    // Act
    await store.recordCall(item, call(new Date().toISOString()));
    // Assess
    expect(await store.get(item.userId, item.resourceId)).toBeUndefined();
  });
});
