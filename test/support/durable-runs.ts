// Following a durable run over the SDK: its execution record, and waiting for a status.
import { expect, vi } from 'vitest';
import type { TestApi, TestUser } from './platform.js';
import { sdk } from './scripts.js';

export function durableRuns(api: TestApi, owner: TestUser) {
  const getExecution = async (executionId: string) => (await api.as(owner.apiKey).post(sdk('getExecution'), { executionId })).body.data;
  const waitForStatus = (executionId: string, status: string) =>
    vi.waitFor(
      async () => {
        const execution = await getExecution(executionId);
        expect(execution.status).toBe(status);
        return execution;
      },
      { timeout: 30_000, interval: 100 },
    );
  return { getExecution, waitForStatus };
}
